package zstdframe

import (
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Bound is what a Reader holds each frame's window to, before a decoder
// sees the frame header. A decoder allocates the window a frame declares
// when the frame starts (klauspost's ring: the window and two blocks),
// so a 41-byte frame declaring 2 GiB would cost 2 GiB; a Reader refuses
// or shrinks that window first:
//
//   - a frame that declares its content size needs no window beyond it:
//     the window descriptor is lowered to fit the content;
//   - a window above MaxWindow is then ErrLimit, and one above Cap is
//     lowered to it;
//   - a frame's blocks each produce at most Block_Maximum_Size (128 KiB)
//     from at least 4 bytes (RFC 8878 3.1.1.2), so the input left after
//     the header bounds the output: a window beyond it is lowered to it,
//     and a content size beyond it is ErrCorrupt;
//   - with MaxRatio, the caller stops output beyond max(RatioFloor,
//     MaxRatio × input), so a window beyond that is ErrLimit.
//
// Lowering a window changes nothing a valid frame decodes to: no offset
// can reach further back than the output so far. Block_Maximum_Size is
// kept (the window stays at least min(declared, 128 KiB)).
type Bound struct {
	MaxWindow uint64 // 0: none
	// Cap lowers any larger window to it (0: none), for a caller that
	// takes no more than the first Cap bytes of output (MaxTotalSize
	// stops the rest; detection reads one block): they decode the same.
	Cap        uint64
	MaxRatio   float64 // 0 or +Inf: none
	RatioFloor int64
	// Size is the source's bytes from Reset to its end, -1 when unknown:
	// the Reader then reads ahead when a frame declares a window above
	// 1 MiB, to learn whether the source ends that soon (peekLen: at
	// most 128 KiB, or 16 MiB with MaxRatio).
	Size int64
}

// BoundOf is the bound lim sets for a source of size bytes (-1:
// unknown): a window above MaxDictionary or what MaxMemory leaves beside
// overhead (the decoder's other buffers) is ErrLimit; one above
// MaxTotalSize is lowered to it (the caller stops output there).
func BoundOf(lim *engine.Limits, size, overhead int64) Bound {
	w := min(lim.MaxDictionary, max(lim.MaxMemory-overhead, 0), 1<<41) // klauspost caps the window at 3.75 TB
	b := Bound{MaxWindow: uint64(max(w, 1)), MaxRatio: lim.MaxRatio, RatioFloor: lim.RatioFloor, Size: size}
	if lim.MaxTotalSize < w {
		b.Cap = uint64(max(lim.MaxTotalSize, 1))
	}
	return b
}

// SetBound makes r hold every frame to b (see Bound); it is kept across
// Reset. The zero Bound checks nothing.
func (r *Reader) SetBound(b Bound) { r.bound = b }

// SetContinuous makes r pass every frame without stopping at the
// boundaries (a plain stream decoder reads through it); kept across Reset.
func (r *Reader) SetContinuous(on bool) { r.cont = on }

const (
	peekAbove = 1 << 20   // a window that makes an unknown-size source read ahead
	peekMax   = 128 << 10 // the most it reads ahead for what the input can fill
	peekRatio = 16 << 20  // the most it reads ahead to judge MaxRatio
	peekKeep  = 128 << 10 // a larger read-ahead buffer is not kept across Reset
)

// peekLen is how far ahead a frame with window w makes the Reader read
// an unknown-size source: far enough that a source ending within it
// could fill no more than w (the input bound), or produce no more than
// w at MaxRatio, whichever is further, up to peekRatio. So a stream
// read forward is judged as a file of known size is, unless it is long.
func (b *Bound) peekLen(w uint64) int64 {
	n := min(w/maxBlockSize*4+8, peekMax)
	if b.MaxRatio > 0 && !math.IsInf(b.MaxRatio, 1) {
		n = max(n, min(uint64(float64(w)/b.MaxRatio)+1, peekRatio))
	}
	return int64(n)
}

// maxOutput is the most a frame's blocks can produce from n bytes.
func maxOutput(n int64) uint64 {
	return (uint64(n)/4 + 1) * maxBlockSize
}

// windowOf is the Window_Size of window descriptor wd (RFC 8878 3.1.1.1.2).
func windowOf(wd byte) uint64 {
	base := uint64(1) << (10 + wd>>3)
	return base + base/8*uint64(wd&7)
}

// fit holds the frame header in hdr (parsed into head) to the bound,
// lowering its window descriptor in hdr when the frame cannot use it.
func (r *Reader) fit() {
	b, h := &r.bound, &r.head
	single := r.hdr[4]&fhdSingle != 0
	if !single && h.ContentSize != Unknown && h.Window > max(h.ContentSize, minWindowSize) {
		r.lower(max(h.ContentSize, min(h.Window, maxBlockSize)))
	}
	if b.MaxWindow > 0 && h.Window > b.MaxWindow {
		r.err = errs.Limit("zstd: frame window of %d bytes, above %d (MaxDictionary, MaxMemory)", h.Window, b.MaxWindow)
		return
	}
	if !single && b.Cap > 0 && h.Window > b.Cap {
		r.lower(max(b.Cap, min(h.Window, maxBlockSize)))
	}
	rem := int64(-1) // the source's bytes after this header
	if b.Size >= 0 {
		rem = b.Size - r.off
	} else if h.Window > peekAbove {
		rem = r.peek(b.peekLen(h.Window))
	}
	if rem < 0 {
		return
	}
	if b.MaxRatio > 0 && !math.IsInf(b.MaxRatio, 1) {
		total := float64(r.off + rem)
		if c := max(float64(b.RatioFloor), b.MaxRatio*total); float64(h.Window) > c {
			r.err = errs.Limit("zstd: frame window of %d bytes, above what %d bytes of input may produce at MaxRatio %g", h.Window, r.off+rem, b.MaxRatio)
			return
		}
	}
	fill := maxOutput(rem)
	if h.ContentSize != Unknown && h.ContentSize > fill {
		r.err = errs.Corrupt("zstd: frame content size %d, more than its %d bytes can hold", h.ContentSize, rem)
		return
	}
	if !single && h.Window > fill {
		r.lower(max(fill, min(h.Window, maxBlockSize)))
	}
}

// lower sets the smallest window descriptor whose window holds want
// (never above the one declared, which holds it).
func (r *Reader) lower(want uint64) {
	for wd := 0; wd < int(r.hdr[5]); wd++ {
		if w := windowOf(byte(wd)); w >= want {
			r.hdr[5] = byte(wd)
			r.head.Window = w
			return
		}
	}
}

// peek reads the source up to n bytes ahead (what an earlier peek read
// and the frame has not taken counts) and reports how many bytes the
// source still holds when it ends within them, else -1.
func (r *Reader) peek(n int64) int64 {
	p := &r.ahead
	if r.r != io.Reader(p) {
		*p = prefix{all: p.all, r: r.r}
		r.r = p
	}
	have := int64(len(p.buf))
	if have >= n || p.err != nil {
		return -1
	}
	if int64(cap(p.all)) < n {
		all := make([]byte, n)
		copy(all, p.buf)
		p.all = all
	} else {
		copy(p.all, p.buf)
	}
	m, err := io.ReadFull(p.r, p.all[have:n])
	p.buf = p.all[:have+int64(m)]
	switch err {
	case nil:
		return -1
	case io.EOF, io.ErrUnexpectedEOF:
		return have + int64(m)
	}
	p.err = err
	return -1
}

// prefix hands out buf, then err (if set), then reads r.
type prefix struct {
	buf []byte
	all []byte // buf's backing array, kept for the next peek
	err error
	r   io.Reader
}

func (p *prefix) Read(b []byte) (int, error) {
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Read(b)
}
