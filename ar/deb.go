package ar

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/tar"
)

// isDebData reports whether a member is a Debian package's data
// tarball: data.tar, or data.tar with a compressor's suffix.
func isDebData(name string) bool {
	return name == "data.tar" || strings.HasPrefix(name, "data.tar.")
}

// errNoData is the error of a package opened with arc.WithDebData that
// has no data tarball.
func errNoData() error {
	return fmt.Errorf("%w: ar: no data.tar member (not a Debian package)", errs.ErrFormat)
}

// openFormat is Format.Open: the ar archive, or with cfg.DebData the
// package's data tarball, opened by the tar package over the member's
// bytes (a section of ra: random access, no copy).
func openFormat(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
	a, err := Open(ra, size, conf.From(cfg))
	switch {
	case err != nil:
		return nil, err
	case !cfg.DebData:
		return a, nil
	}
	for i, e := range a.ents {
		if isDebData(e.Name) {
			return tar.Format.Open(io.NewSectionReader(ra, a.items[i].off, e.Size), e.Size, cfg)
		}
	}
	return nil, errNoData()
}

// newFormatReader is Format.NewReader: the ar archive, or with
// cfg.DebData the data tarball, read by the tar package from the
// member's data as the stream passes it.
func newFormatReader(r io.Reader, cfg *arc.Config) (arc.Reader, error) {
	c, err := conf.New(conf.From(cfg))
	if err != nil {
		return nil, err
	}
	z, err := newReader(r, &c)
	switch {
	case err != nil:
		return nil, err
	case !cfg.DebData:
		return z, nil
	}
	for {
		e, err := z.Next()
		if err == io.EOF {
			return nil, errNoData()
		}
		if err != nil {
			return nil, err
		}
		if isDebData(e.Name) {
			return tar.Format.NewReader(z, cfg)
		}
	}
}
