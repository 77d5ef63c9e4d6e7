package unpack50

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

const (
	inBufSize = 1 << 16
	// inPad zero bytes follow the real data so refills never need a bounds
	// branch; reading into them is detected as truncation by bitPos.
	inPad = 64
	// A symbol (code + extra bits, or a filter record) takes at most ~92
	// bits, so with fastMargin bytes left no per-symbol input checks are needed.
	fastMargin = 40
)

// bitReader reads the packed stream MSB-first through a 64-bit buffer.
// It stays apart from rarbits.Reader on purpose: its zero-padded buffer
// lets the hot loop refill without a branch or a per-symbol input check,
// and it tracks the stream's bit position, which RAR 5.0 block sizes
// (given in bits) are checked against; RAR 1.5–4 streams have neither.
// bits holds n valid bits at its top; buf[pos:end] are bytes not yet loaded.
type bitReader struct {
	r    io.Reader
	bufp *[]byte
	buf  []byte
	pos  int
	end  int   // real data in buf[:end]; buf[end:end+inPad] is zero
	base int64 // stream offset of buf[0]
	eof  bool
	rerr error // non-EOF read error, reported when data runs out
	bits uint64
	n    uint
}

func (b *bitReader) reset(r io.Reader) {
	if b.bufp == nil {
		b.bufp = pool.Get(inBufSize)
		b.buf = (*b.bufp)[:inBufSize]
	}
	*b = bitReader{r: r, bufp: b.bufp, buf: b.buf}
	clear(b.buf[:inPad])
}

func (b *bitReader) release() {
	pool.Put(b.bufp)
	b.bufp, b.buf = nil, nil
}

// bitPos is the stream position, in bits, of the next unread bit.
func (b *bitReader) bitPos() int64 { return (b.base+int64(b.pos))*8 - int64(b.n) }

// endBits is the stream length in bits when known (after EOF), else max.
func (b *bitReader) endBits() int64 {
	if !b.eof {
		return 1<<62 - 1
	}
	return (b.base + int64(b.end)) * 8
}

// fill compacts and reads more input when fewer than fastMargin bytes remain.
func (b *bitReader) fill() {
	if b.eof || b.end-b.pos >= fastMargin {
		return
	}
	b.load()
}

// fillN reports whether n bytes at pos are buffered, reading more if
// they fit the buffer.
func (b *bitReader) fillN(n int) bool {
	if b.end-b.pos >= n {
		return true
	}
	if b.eof || n > len(b.buf)-inPad {
		return false
	}
	b.load()
	return b.end-b.pos >= n
}

// load compacts the buffer and reads until it is full or the input ends.
func (b *bitReader) load() {
	if b.pos > 0 {
		copy(b.buf, b.buf[b.pos:b.end])
		b.base += int64(b.pos)
		b.end -= b.pos
		b.pos = 0
	}
	limit := len(b.buf) - inPad
	for zero := 0; b.end < limit && !b.eof; {
		k, err := b.r.Read(b.buf[b.end:limit])
		b.end += k
		switch {
		case err != nil:
			b.eof = true
			if err != io.EOF {
				b.rerr = err
			}
		case k > 0:
			zero = 0
		default:
			// A reader that keeps returning (0, nil) would hang us.
			if zero++; zero > 100 {
				b.eof, b.rerr = true, io.ErrNoProgress
			}
		}
	}
	clear(b.buf[b.end : b.end+inPad])
}

// refill tops the bit buffer up to at least 56 bits. buf always has
// 8 readable bytes at pos thanks to the padding, as callers keep pos
// within end+inPad-8 (checked by truncated()).
func (b *bitReader) refill() {
	if b.n <= 56 {
		v := binary.BigEndian.Uint64(b.buf[b.pos:])
		b.bits |= v >> b.n
		b.pos += int(63-b.n) >> 3
		b.n |= 56
	}
}

// peek returns the next k (<= 32) bits; refill must have been called.
func (b *bitReader) peek(k uint) uint32 { return uint32(b.bits >> (64 - k)) }

func (b *bitReader) skip(k uint) {
	b.bits <<= k
	b.n -= k
}

// get reads k (<= 32) bits.
func (b *bitReader) get(k uint) uint32 {
	if k == 0 {
		return 0
	}
	b.refill()
	v := uint32(b.bits >> (64 - k))
	b.bits <<= k
	b.n -= k
	return v
}

// alignByte skips to the next byte boundary.
func (b *bitReader) alignByte() { b.skip(b.n & 7) }

// check makes sure input is buffered and reports truncation: an error once
// the reader has consumed bits beyond the end of the input.
func (b *bitReader) check() error {
	b.fill()
	if b.bitPos() > b.endBits() {
		if b.rerr != nil {
			return errs.EOF(b.rerr, "rar5 packed data")
		}
		return errs.Truncated("rar5 packed data")
	}
	return nil
}

// corrupt reports malformed data, unless the bits that looked malformed
// came from past the end of the input: then it is a truncation.
func (b *bitReader) corrupt(format string, args ...any) error {
	if err := b.check(); err != nil {
		return err
	}
	return errs.Corrupt(format, args...)
}
