package lzma

import "io"

// core is what Reader and Reader2 share: the input, the window, the
// LZMA decoder state, the options, the sizes and the sticky error; and on
// them Read, WriteTo, Close and Size. The embedding reader's step, which
// begin ties in, decodes the next part of the stream into the window.
type core struct {
	in     input
	w      window
	d      decoder
	cfg    config
	size   int64 // uncompressed size; -1 unknown
	total  int64 // bytes decoded so far
	inBase int64 // input offset of the first byte of in (a checkpoint's)
	err    error // sticky; io.EOF after the end of the stream
	next   stepper
}

// stepper decodes up to stepMax bytes per call, so the interface call is
// not in the per-byte loop.
type stepper interface{ step() }

// begin prepares s for a stream of size bytes (-1 unknown) from r, with a
// window of n bytes, stepped by next.
func (s *core) begin(next stepper, r io.Reader, n int, size int64) {
	s.next = next
	s.w.reset(n, size < 0 || s.cfg.grow)
	s.in.reset(r)
	if s.d.m == nil {
		s.d.m = models.Get()
	}
	s.size, s.total, s.inBase = size, 0, 0
}

// inputOffset is the offset in the stream's input of the next byte the
// decoder will consume.
func (s *core) inputOffset() int64 { return s.inBase + s.in.Base + int64(s.in.IP) }

// Read decodes into p.
func (s *core) Read(p []byte) (int, error) {
	for {
		if s.w.rd < s.w.pos {
			return s.w.read(p), nil
		}
		if s.err != nil {
			return 0, s.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		if s.next == nil {
			return 0, ErrClosed // never Reset
		}
		s.next.step()
	}
}

// WriteTo writes the rest of the stream to dst straight from the window;
// the end of the stream (io.EOF) is a nil error.
func (s *core) WriteTo(dst io.Writer) (int64, error) {
	var total int64
	for {
		if s.w.rd < s.w.pos {
			n, werr := s.w.writeTo(dst)
			total += int64(n)
			if werr != nil {
				return total, werr
			}
		}
		if s.err != nil {
			if s.err == io.EOF {
				return total, nil
			}
			return total, s.err
		}
		if s.next == nil {
			return total, ErrClosed // never Reset
		}
		s.next.step()
	}
}

// Close returns the window, tables and input buffer to the pools. Reads
// fail afterwards until Reset.
func (s *core) Close() error {
	s.w.release()
	s.in.release()
	models.Put(s.d.m)
	s.d.m = nil
	s.err = ErrClosed
	return nil
}

// Done reports whether the stream has ended, checked, and every byte of
// it has been read: nothing more is to come from s (a caller that
// checkpoints the stream needs no state for it then).
func (s *core) Done() bool { return s.err == io.EOF && s.w.rd == s.w.pos }

// Total returns the bytes decoded so far (from a checkpoint: counted
// from the stream's start).
func (s *core) Total() int64 { return s.total }

// Size returns the declared uncompressed size, or -1 when unknown.
func (s *core) Size() int64 { return s.size }
