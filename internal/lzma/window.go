package lzma

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// window is the dictionary: a circular buffer holding the last len(buf)
// bytes of output, which readers are served from directly.
//
// Decoding only runs once everything decoded has been delivered
// (rd == pos), so it may fill the buffer up to its end; the buffer wraps
// (or grows) only when it is full and delivered. Its length is a multiple
// of 16, so pos&15 is the stream position modulo 16 that LZMA's literal
// and position contexts need.
type window struct {
	p    *[]byte // pool handle of buf
	buf  []byte
	pos  int  // next byte to decode into
	rd   int  // next byte to deliver; rd <= pos
	full bool // buf has wrapped: all of it is history
	max  int  // length the window may grow to
}

// initialWindow is the first size of a window whose stream size is
// unknown; it doubles up to the dictionary size as the output grows.
const initialWindow = 64 << 10

// windowSize returns the window a stream needs: the dictionary size, or the
// uncompressed size when that is known and smaller, rounded up to 16. It
// fails with ErrLimit when that exceeds maxDict (0: no limit).
func windowSize(dict, size, maxDict int64) (int, error) {
	n := max(dict, minDictSize)
	if size >= 0 && size < n {
		n = size
	}
	if maxDict > 0 && n > maxDict {
		return 0, errs.Limit("lzma: window of %d bytes exceeds the limit of %d", n, maxDict)
	}
	if n > 1<<40 {
		return 0, errs.Limit("lzma: window of %d bytes", n)
	}
	return int((n + 15) &^ 15), nil
}

// reset prepares an empty window that can grow to max bytes, allocating
// min(max, initialWindow) now when the size is unknown (grow) or max when
// it is known.
func (w *window) reset(max int, grow bool) {
	n := max
	if grow {
		n = min(max, initialWindow)
	}
	n = (n + 15) &^ 15
	if n < 16 {
		n = 16
	}
	if w.p == nil || cap(*w.p) < n {
		pool.Put(w.p)
		w.p = pool.Get(n)
		pool.AdviseHuge((*w.p)[:cap(*w.p)])
	}
	w.buf = (*w.p)[:n]
	w.pos, w.rd, w.full, w.max = 0, 0, false, max
}

// release gives the buffer back to the pool.
func (w *window) release() {
	pool.Put(w.p)
	*w = window{}
}

// dictReset forgets the history (LZMA2 dictionary reset). Everything has
// been delivered, so the buffer simply starts over.
func (w *window) dictReset() {
	w.pos, w.rd, w.full = 0, 0, false
}

// room makes space to decode into once the buffer is full and delivered:
// it grows the buffer while it is below max, else wraps.
func (w *window) room() {
	if w.pos < len(w.buf) {
		return
	}
	if !w.full && len(w.buf) < w.max {
		// Grow fourfold: the copy keeps the old window alive beside the
		// new one, and fewer generations leave less garbage behind
		// (doubling peaked near twice the final window). The last step
		// may be up to sixteenfold, so a full 256 MiB dictionary is copied
		// from 16 MiB, not 64 MiB: the peak is the final window plus a
		// sixteenth, not plus a quarter.
		final := (w.max + 15) &^ 15
		n := min(4*len(w.buf), final)
		if final <= 16*len(w.buf) {
			n = final
		}
		if cap(*w.p) >= n {
			w.buf = (*w.p)[:n]
			return
		}
		// A warm final window waiting in the pool (the previous stream's)
		// is taken at once: no growth steps, no garbage. None is
		// reserved when the pool has none, so the peak stays as below.
		p := pool.TryGet(final)
		if p != nil {
			n = final
		} else {
			p = pool.Get(n)
		}
		pool.AdviseHuge((*p)[:cap(*p)])
		copy(*p, w.buf)
		// An outgrown window of a megabyte or more is left to the garbage
		// collector: the pool's kept list would pin every generation of a
		// growing window (twice the final size in all).
		if cap(*w.p) < 1<<20 {
			pool.Put(w.p)
		}
		w.p = p
		w.buf = (*p)[:n]
		return
	}
	w.pos, w.rd, w.full = 0, 0, true
}

// read copies delivered-pending bytes to p.
func (w *window) read(p []byte) int {
	n := copy(p, w.buf[w.rd:w.pos])
	w.rd += n
	return n
}

// writeTo writes the pending bytes to dst.
func (w *window) writeTo(dst io.Writer) (int, error) {
	n, err := dst.Write(w.buf[w.rd:w.pos])
	w.rd += n
	if err == nil && w.rd < w.pos {
		err = io.ErrShortWrite
	}
	return n, err
}
