package cpio

import (
	"io"
	"sync"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
	"github.com/go-unarc/unarc/internal/inner"
)

// A cpio archive inside a compressed stream is found by the tar package
// (which detects the compressors) asking internal/inner, where this
// package registers.
func init() {
	inner.Register(&inner.Format{Name: "cpio", SniffHead: sniffHead, NewReader: newInnerReader, OpenStream: openStream})
}

// newInnerReader reads a cpio archive forward from r, a decoded stream.
func newInnerReader(r io.Reader, done io.Closer, s inner.Stream, cfg *arc.Config) (arc.Reader, error) {
	z, err := NewReader(r, conf.From(cfg))
	if err != nil {
		return nil, err
	}
	z.name, z.check, z.done = s.Name, s.Check, done
	z.l.method = s.Method
	return z, nil
}

// streamed is what an Archive over a compressed stream keeps: how to
// decode the stream again, and the pass after the last closed entry.
type streamed struct {
	open  func() (io.ReadCloser, error)
	done  io.Closer
	name  string
	check string

	mu     sync.Mutex
	idle   *cursor
	closed bool
}

// cursor is one decoding pass over the stream, at src.Off.
type cursor struct {
	rc  io.ReadCloser
	src fwd.Stream
}

// close ends the pass and gives its buffer back.
func (c *cursor) close() {
	c.rc.Close()
	c.src.Release()
}

// openStream lists a cpio archive from a decoded stream that open
// starts again from its beginning.
func openStream(open func() (io.ReadCloser, error), done io.Closer, s inner.Stream, cfg *arc.Config) (arc.Archive, error) {
	c, err := conf.New(conf.From(cfg))
	if err != nil {
		return nil, err
	}
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	src := fwd.NewStream(rc, "cpio")
	defer src.Release()
	if b, err := src.Peek(6); err != nil || kindOf(b) == 0 {
		if err == nil {
			err = errs.ErrFormat
		}
		return nil, err
	}
	a := &Archive{st: &streamed{open: open, done: done, name: s.Name, check: s.Check}}
	if err := a.list(&lister{p: parser{src: src, lim: &c.Bounds}, lim: &c.Bounds, keep: true, method: s.Method}, -1); err != nil {
		return nil, err
	}
	return a, nil
}

// seek returns a pass positioned at off: the kept one when it has not
// passed off, else a new one from the start.
func (s *streamed) seek(off int64) (*cursor, error) {
	s.mu.Lock()
	c := s.idle
	if c != nil && c.src.Off <= off {
		s.idle = nil
	} else {
		c = nil
	}
	s.mu.Unlock()
	if c == nil {
		rc, err := s.open()
		if err != nil {
			return nil, err
		}
		c = &cursor{rc: rc}
		c.src.Name = "cpio"
		c.src.Reset(rc)
	}
	if err := c.src.Skip(off - c.src.Off); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// put keeps c, a pass handed back by a closed entry, for the next entry.
func (s *streamed) put(c *cursor) {
	s.mu.Lock()
	old := s.idle
	if s.closed {
		old = c
	} else {
		s.idle = c
	}
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
}

func (s *streamed) close() error {
	s.mu.Lock()
	c := s.idle
	s.idle, s.closed = nil, true
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	return s.done.Close()
}

// FormatName says what was read: "cpio", or inside a compressed stream
// "cpio.gz", "cpio.xz" ….
func (a *Archive) FormatName() string {
	if a.st != nil {
		return a.st.name
	}
	return "cpio"
}

// StreamCheck names the checksum of the compressed stream that covers
// every entry ("gzip CRC32" …), "" for none or a plain archive. Listing
// decoded the whole stream and verified it.
func (a *Archive) StreamCheck() string {
	if a.st != nil && len(a.warns) == 0 {
		return a.st.check
	}
	return ""
}
