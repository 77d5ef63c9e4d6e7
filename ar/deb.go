package ar

import (
	"io"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/tar"
)

// isDebData reports whether a member is a Debian package's data
// tarball: data.tar, or data.tar with a compressor's suffix.
func isDebData(name string) bool {
	return name == "data.tar" || strings.HasPrefix(name, "data.tar.")
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
	p, err := openParser(ra, size, conf.From(cfg))
	if err != nil {
		return nil, err
	}
	h, err := findData(p)
	if err != nil {
		return nil, err
	}
	return tar.Format.Open(io.NewSectionReader(ra, h.off, h.size), h.size, cfg)
}

// findData passes the members before the data tarball and returns its
// header, the parser at its data.
func findData(p *parser) (*header, error) {
	for {
		h, err := p.next(0)
		if err == io.EOF {
			return nil, errNoData
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
