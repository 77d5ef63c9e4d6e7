package bzip2

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// bitReader reads MSB-first bits from an io.Reader through a pooled
// buffer, or from a byte slice (r == nil: the slice is all there is).
type bitReader struct {
	r   io.Reader
	bp  *[]byte // pooled buffer (nil for a slice)
	buf []byte  // buffered input; buf[pos:] is unread
	pos int
	v   uint64 // the low n bits are unread, the next one at bit n-1
	n   uint
	off int64 // stream offset of buf[0]
	eof bool  // no more input beyond buf
	err error // r's error other than io.EOF
}

func (b *bitReader) resetReader(r io.Reader) {
	if b.bp == nil {
		b.bp = pool.Get(inBufSize)
	}
	*b = bitReader{r: r, bp: b.bp, buf: (*b.bp)[:0]}
}

func (b *bitReader) resetBytes(p []byte) {
	*b = bitReader{buf: p, eof: true, bp: b.bp}
}

func (b *bitReader) release() {
	pool.Put(b.bp)
	*b = bitReader{eof: true}
}

// bitPos is the stream position, in bits, of the next unread bit.
func (b *bitReader) bitPos() int64 {
	return (b.off+int64(b.pos))*8 - int64(b.n)
}

// more reads from r into the buffer; false when there is nothing more.
func (b *bitReader) more() bool {
	if b.eof {
		return false
	}
	rest := copy(b.buf[:cap(b.buf)], b.buf[b.pos:])
	b.off += int64(b.pos)
	b.pos = 0
	b.buf = b.buf[:rest]
	for tries := 0; tries < 100; tries++ {
		m, err := b.r.Read(b.buf[rest:cap(b.buf)])
		b.buf = b.buf[:rest+m]
		if err != nil {
			b.eof = true
			if err != io.EOF {
				b.err = err
			}
			return m > 0
		}
		if m > 0 {
			return true
		}
	}
	b.eof, b.err = true, io.ErrNoProgress
	return false
}

// fill makes n at least 57, or takes all the input there is.
func (b *bitReader) fill() {
	for b.n <= 56 {
		if b.pos+8 <= len(b.buf) {
			w := binary.BigEndian.Uint64(b.buf[b.pos:])
			k := (64 - b.n) >> 3
			b.v = b.v<<(k*8) | w>>(64-k*8)
			b.pos += int(k)
			b.n += k * 8
			return
		}
		if b.pos < len(b.buf) {
			b.v = b.v<<8 | uint64(b.buf[b.pos])
			b.pos++
			b.n += 8
			continue
		}
		if !b.more() {
			return
		}
	}
}

// short is the error for input that ends before the bits a structure
// needs: r's own error when it failed, else a truncation.
func (b *bitReader) short(what string) error {
	if b.err != nil {
		return b.err
	}
	return errs.Truncated("bzip2 " + what)
}

// bits reads k (1..32) bits.
func (b *bitReader) bits(k uint, what string) (uint32, error) {
	if b.n < k {
		b.fill()
		if b.n < k {
			return 0, b.short(what)
		}
	}
	b.n -= k
	return uint32(b.v>>b.n) & (1<<k - 1), nil
}

// alignByte drops the bits up to the next byte boundary.
func (b *bitReader) alignByte() {
	b.n -= b.n % 8
}

// atEOF reports whether no input is left (after alignByte).
func (b *bitReader) atEOF() bool {
	if b.n > 0 {
		return false
	}
	b.fill()
	return b.n == 0
}
