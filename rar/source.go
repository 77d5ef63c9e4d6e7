package rar

import (
	"bufio"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// source is the header reader's input: a buffered reader that knows its
// offset and can skip data areas, by seeking when the input allows it
// (an io.ReaderAt volume) and by reading otherwise (a stream).
type source struct {
	br   *bufio.Reader
	sr   *io.SectionReader // nil for a stream
	off  int64             // offset of the next byte br returns
	size int64             // -1 for a stream
}

// brPool keeps the 32 KiB header buffers: one per archive opened would
// otherwise be most of what an extraction allocates.
var brPool = pool.Of[bufio.Reader]{New: func() *bufio.Reader { return bufio.NewReaderSize(nil, 32<<10) }}

func newSource() *source { return &source{br: brPool.Get()} }

// release returns the buffer to the pool; the source is unusable after.
func (s *source) release() {
	if s.br != nil {
		s.br.Reset(nil)
		brPool.Put(s.br)
		s.br = nil
	}
	s.sr = nil
}

func (s *source) resetAt(ra io.ReaderAt, off, size int64) {
	s.sr = io.NewSectionReader(ra, 0, size)
	s.sr.Seek(off, io.SeekStart)
	s.br.Reset(s.sr)
	s.off, s.size = off, size
}

func (s *source) resetStream(r io.Reader) {
	s.sr = nil
	s.br.Reset(r)
	s.off, s.size = 0, -1
}

// Read reads from the buffered input.
func (s *source) Read(p []byte) (int, error) {
	n, err := s.br.Read(p)
	s.off += int64(n)
	return n, err
}

// full reads exactly len(p) bytes; a short read is a truncation of what.
func (s *source) full(p []byte, what string) error {
	n, err := io.ReadFull(s.br, p)
	s.off += int64(n)
	if err != nil {
		if err == io.EOF && n == 0 {
			return io.EOF
		}
		return errs.EOF(err, what)
	}
	return nil
}

// skip moves n bytes forward.
func (s *source) skip(n int64, what string) error {
	if n < 0 {
		return errs.Corrupt("negative skip in %s", what)
	}
	if s.sr != nil {
		if s.off+n > s.size || s.off+n < s.off {
			s.off = s.size
			return errs.Truncated(what)
		}
		if n <= int64(s.br.Buffered()) {
			s.br.Discard(int(n))
		} else {
			s.sr.Seek(s.off+n, io.SeekStart)
			s.br.Reset(s.sr)
		}
		s.off += n
		return nil
	}
	for n > 0 {
		k := int(min(n, 1<<30))
		d, err := s.br.Discard(k)
		s.off += int64(d)
		n -= int64(d)
		if err != nil {
			return errs.EOF(io.ErrUnexpectedEOF, what)
		}
	}
	return nil
}

// short reports whether fewer than n bytes are left (streams only peek).
func (s *source) short(n int) bool {
	_, err := s.br.Peek(n)
	return err != nil
}
