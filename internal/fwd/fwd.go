// Package fwd is the input a header parser reads forward: an io.ReaderAt
// of known size from a position, which skips data by moving it, or a
// stream through a pooled bufio.Reader, which skips data by reading it.
// The cpio and ar packages read their headers and data through it. An
// input that ends early is an error matching errs.ErrTruncated, named
// after the format and the part being read.
package fwd

import (
	"bufio"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Source is the input at a position.
type Source interface {
	// Full reads len(p) bytes.
	Full(p []byte) error
	// Skip moves n bytes forward.
	Skip(n int64) error
	// Pos is the position in the input.
	Pos() int64
	// Peek returns up to n (at most 512) bytes ahead without consuming
	// them: fewer at the end of the input, none after it.
	Peek(n int) ([]byte, error)
}

// At reads RA, which holds Size bytes, from Off.
type At struct {
	RA   io.ReaderAt
	Size int64
	Off  int64
	Name string // the format, for errors ("cpio")
	buf  [512]byte
}

func (s *At) Full(p []byte) error {
	if int64(len(p)) > s.Size-s.Off {
		return errs.Truncated(s.Name + " header")
	}
	n, err := s.RA.ReadAt(p, s.Off)
	s.Off += int64(n)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return errs.Truncated(s.Name + " header")
	}
	return err
}

func (s *At) Skip(n int64) error {
	if n > s.Size-s.Off {
		s.Off = s.Size
		return errs.Truncated(s.Name + " data")
	}
	s.Off += n
	return nil
}

func (s *At) Pos() int64 { return s.Off }

func (s *At) Peek(n int) ([]byte, error) {
	n = int(min(int64(min(n, len(s.buf))), max(s.Size-s.Off, 0)))
	m, err := s.RA.ReadAt(s.buf[:n], s.Off)
	if m == n {
		err = nil
	}
	return s.buf[:m], err
}

// Stream reads a stream forward, counting what it consumed in Off.
type Stream struct {
	BR     *bufio.Reader
	Off    int64
	Name   string // the format, for errors ("cpio")
	pooled bool
}

// readers are the buffers over streams (4 KiB each), kept between
// archives.
var readers pool.Of[bufio.Reader]

// NewStream reads r: through r itself when it is a *bufio.Reader, else
// through a pooled one that Release gives back.
func NewStream(r io.Reader, name string) *Stream {
	s := &Stream{Name: name}
	s.Reset(r)
	return s
}

// Reset starts s over r (see NewStream), releasing its buffer first.
func (s *Stream) Reset(r io.Reader) {
	s.Release()
	s.Off = 0
	if br, ok := r.(*bufio.Reader); ok {
		s.BR = br
		return
	}
	s.BR, s.pooled = readers.Get(), true
	s.BR.Reset(r)
}

// Release gives back a pooled buffer; s reads nothing more.
func (s *Stream) Release() {
	if s.pooled {
		s.BR.Reset(nil)
		readers.Put(s.BR)
		s.pooled = false
	}
	s.BR = nil
}

func (s *Stream) Full(p []byte) error {
	n, err := io.ReadFull(s.BR, p)
	s.Off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errs.Truncated(s.Name + " header")
	}
	return err
}

func (s *Stream) Skip(n int64) error {
	for n > 0 {
		k, err := s.BR.Discard(int(min(n, 1<<30)))
		s.Off += int64(k)
		n -= int64(k)
		if err == io.EOF {
			return errs.Truncated(s.Name + " data")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Stream) Pos() int64 { return s.Off }

func (s *Stream) Peek(n int) ([]byte, error) {
	b, err := s.BR.Peek(min(n, 512))
	if err == io.EOF || err == bufio.ErrBufferFull {
		err = nil
	}
	return b, err
}

// Read reads entry data (at most len(p) bytes); the stream ending is
// io.EOF, which the caller judges against the size it expects.
func (s *Stream) Read(p []byte) (int, error) {
	n, err := s.BR.Read(p)
	s.Off += int64(n)
	return n, err
}
