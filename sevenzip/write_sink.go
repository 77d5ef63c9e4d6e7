package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-unarc/unarc/internal/errs"
)

// sink takes the archive's bytes after the 32-byte start header, in
// order, and puts the start header in place at the end.
type sink struct {
	pos    int64 // archive offset of the next byte
	failed bool  // the archive failed: write nothing more

	w      io.Writer // sequential target (nil with volumes)
	at     io.WriterAt
	ws     io.WriteSeeker
	base   int64 // WriteSeeker offset of the archive start
	spool  io.ReadWriteSeeker
	final  io.Writer // with a spool: where the archive goes at Close
	tmp    *os.File  // the spool when the writer made it (removed at the end)
	defer_ bool
	start  [sigHeaderSize]byte

	volSize int64
	volNew  func(int) (io.Writer, error)
	vols    []io.Writer // created so far (the last one is current)
	volLeft int64
}

var errSinkFailed = errors.New("7z writer: the archive failed")

// spoolPattern names the temporary file a plain io.Writer's archive is
// spooled to (os.CreateTemp, in os.TempDir).
const spoolPattern = "unarc-7z-*.spool"

func newSink(w io.Writer, c *writerConfig) (*sink, error) {
	s := &sink{}
	var zero [sigHeaderSize]byte
	switch {
	case c.volNew != nil:
		s.volSize, s.volNew = c.volSize, c.volNew
		if err := s.nextVolume(); err != nil {
			return nil, err
		}
		switch s.vols[0].(type) {
		case io.WriteSeeker, io.WriterAt:
		default:
			return nil, invalid("volume 1 is neither an io.WriteSeeker nor an io.WriterAt")
		}
		if _, err := s.Write(zero[:]); err != nil {
			return nil, err
		}
		return s, nil
	case w == nil:
		return nil, invalid("nil output")
	case c.spool != nil:
		if _, err := c.spool.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		s.w, s.spool, s.final = c.spool, c.spool, w
	case c.deferred:
		s.w, s.defer_ = w, true
		s.pos = sigHeaderSize
		return s, nil
	default:
		if ws, ok := w.(io.WriteSeeker); ok {
			off, err := ws.Seek(0, io.SeekCurrent)
			if err == nil {
				s.w, s.ws, s.base = w, ws, off
				break
			}
		}
		if at, ok := w.(io.WriterAt); ok {
			s.at = at
			break
		}
		// A plain io.Writer: the archive is spooled to a temporary file
		// and copied to w at Close, after its start header.
		f, err := os.CreateTemp("", spoolPattern)
		if err != nil {
			return nil, fmt.Errorf("7z writer: spool for a plain io.Writer: %w", err)
		}
		s.w, s.spool, s.final, s.tmp = f, f, w, f
	}
	// The start header stays zero until Close, as 7-Zip leaves it: a
	// reader recognises an unfinished archive.
	if _, err := s.Write(zero[:]); err != nil {
		return nil, err
	}
	return s, nil
}

// Write appends p to the archive.
func (s *sink) Write(p []byte) (int, error) {
	if s.failed {
		return 0, errSinkFailed
	}
	var n int
	var err error
	switch {
	case s.volNew != nil:
		err = s.volWrite(p)
		if err == nil {
			n = len(p)
		}
	case s.at != nil:
		n, err = s.at.WriteAt(p, s.pos)
	default:
		n, err = s.w.Write(p)
		if err == nil && n < len(p) {
			err = io.ErrShortWrite
		}
	}
	s.pos += int64(n)
	return n, err
}

func (s *sink) nextVolume() error {
	if len(s.vols) > 1 {
		if c, ok := s.vols[len(s.vols)-1].(io.Closer); ok {
			if err := c.Close(); err != nil {
				return err
			}
		}
	}
	if len(s.vols) >= 99999 {
		return errs.Limit("7z writer: more than 99999 volumes")
	}
	v, err := s.volNew(len(s.vols) + 1)
	if err != nil {
		return err
	}
	if v == nil {
		return errors.New("7z writer: volume callback returned nil")
	}
	s.vols = append(s.vols, v)
	s.volLeft = s.volSize
	return nil
}

func (s *sink) volWrite(p []byte) error {
	for len(p) > 0 {
		if s.volLeft == 0 {
			if err := s.nextVolume(); err != nil {
				return err
			}
		}
		k := min(int64(len(p)), s.volLeft)
		v := s.vols[len(s.vols)-1]
		var err error
		if at, ok := v.(io.WriterAt); ok && len(s.vols) == 1 {
			_, err = at.WriteAt(p[:k], s.volSize-s.volLeft)
		} else {
			var n int
			n, err = v.Write(p[:k])
			if err == nil && int64(n) < k {
				err = io.ErrShortWrite
			}
		}
		if err != nil {
			return err
		}
		s.volLeft -= k
		p = p[k:]
	}
	return nil
}

// finish puts the start header in place (or keeps it for StartHeader).
func (s *sink) finish(start [sigHeaderSize]byte) error {
	s.start = start
	switch {
	case s.defer_:
		return nil
	case s.volNew != nil:
		var err error
		switch v := s.vols[0].(type) {
		case io.WriterAt:
			_, err = v.WriteAt(start[:], 0)
		case io.WriteSeeker:
			err = patchSeeker(v, 0, start[:])
		}
		for i, v := range s.vols {
			if c, ok := v.(io.Closer); ok && (i == 0 || i == len(s.vols)-1) {
				if cerr := c.Close(); err == nil {
					err = cerr
				}
			}
		}
		return err
	case s.at != nil:
		_, err := s.at.WriteAt(start[:], 0)
		return err
	case s.spool != nil:
		if _, err := s.final.Write(start[:]); err != nil {
			return err
		}
		if _, err := s.spool.Seek(sigHeaderSize, io.SeekStart); err != nil {
			return err
		}
		_, err := io.CopyN(s.final, s.spool, s.pos-sigHeaderSize)
		if err == io.EOF {
			err = errors.New("7z writer: the spool holds less than was written to it")
		}
		if rerr := s.dropTemp(); err == nil {
			err = rerr
		}
		return err
	}
	return patchSeeker(s.ws, s.base, start[:])
}

// abort closes the volumes still open after a failure, and removes the
// writer's own spool.
func (s *sink) abort() {
	s.failed = true
	s.dropTemp()
	for i, v := range s.vols {
		if c, ok := v.(io.Closer); ok && (i == 0 || i == len(s.vols)-1) {
			c.Close()
		}
	}
	s.vols = nil
}

// patchSeeker writes b at off and returns to the end.
func patchSeeker(ws io.WriteSeeker, off int64, b []byte) error {
	end, err := ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := ws.Seek(off, io.SeekStart); err != nil {
		return err
	}
	if _, err := ws.Write(b); err != nil {
		return err
	}
	_, err = ws.Seek(end, io.SeekStart)
	return err
}

// dropTemp closes and removes the spool the writer made, if any.
func (s *sink) dropTemp() error {
	f := s.tmp
	if f == nil {
		return nil
	}
	s.tmp = nil
	err := f.Close()
	if rerr := os.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}
