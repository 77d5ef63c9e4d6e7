package ar

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
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
	if !cfg.DebData {
		a, err := Open(ra, size, conf.From(cfg))
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	c, err := conf.ForInput(ra, size, conf.From(cfg))
	if err != nil {
		return nil, err
	}
	if !sniff(ra, size) {
		return nil, errs.ErrFormat
	}
	h, err := findData(&parser{src: &fwd.At{RA: ra, Size: size, Off: int64(len(magic)), Name: "ar"}, lim: &c.Bounds})
	if err != nil {
		return nil, err
	}
	if h.off+h.size > size {
		return nil, errs.Truncated("ar: the data tarball passes the end of the input")
	}
	return tar.Format.Open(io.NewSectionReader(ra, h.off, h.size), h.size, cfg)
}

// findData passes the members before the data tarball and returns its
// header, the parser at its data.
func findData(p *parser) (*header, error) {
	for {
		h, err := p.next(0)
		if err == io.EOF {
			return nil, errNoData()
		}
		if err != nil {
			return nil, err
		}
		if isDebData(h.name) {
			return h, nil
		}
	}
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
	if err != nil {
		return nil, err
	}
	if !cfg.DebData {
		return z, nil
	}
	h, err := findData(&z.p)
	if err != nil {
		return nil, err
	}
	z.left = h.size
	return tar.Format.NewReader(z, cfg)
}
