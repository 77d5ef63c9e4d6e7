package unpack29

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// inBufSize is the input buffer: big enough that refills are rare, small
// enough to stay in L2.
const inBufSize = 64 << 10

// bitReader reads RAR's MSB-first bit stream from an io.Reader. Bits are
// kept left-aligned in v; n counts the valid ones. When the source ends it
// appends zero bytes and counts them in pad, so a decoder can tell a
// stream that ran past its end (pad*8 > n) from one that ended cleanly.
type bitReader struct {
	src  io.Reader
	bufp *[]byte
	buf  []byte
	r, w int    // unread input is buf[r:w]
	v    uint64 // next bits, MSB first
	n    uint   // valid bits in v
	pad  int    // zero bytes appended after the source ended
	eof  bool   // src returned io.EOF
	err  error  // a read error other than io.EOF
}

func (b *bitReader) reset(src io.Reader) {
	if b.bufp == nil {
		b.bufp = pool.Get(inBufSize)
		b.buf = *b.bufp
	}
	b.src = src
	b.r, b.w = 0, 0
	b.v, b.n = 0, 0
	b.pad = 0
	b.eof = false
	b.err = nil
}

func (b *bitReader) release() {
	if b.bufp != nil {
		pool.Put(b.bufp)
		b.bufp, b.buf = nil, nil
	}
	b.src = nil
}

// overrun reports whether bits past the end of the input were consumed.
func (b *bitReader) overrun() bool { return b.pad > 0 && uint(b.pad)*8 > b.n }

// load reads more input into buf, keeping buf[r:w].
func (b *bitReader) load() {
	if b.eof || b.err != nil {
		return
	}
	if b.r > 0 {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	for empty := 0; b.w < len(b.buf); empty++ {
		if empty == 100 {
			b.err = io.ErrNoProgress // a Reader that keeps returning 0, nil
			return
		}
		k, err := b.src.Read(b.buf[b.w:])
		b.w += k
		if err != nil {
			if err == io.EOF {
				b.eof = true
			} else {
				b.err = err
			}
			return
		}
		if k > 0 {
			return
		}
	}
}

// fill tops v up to at least 56 valid bits.
func (b *bitReader) fill() {
	if b.w-b.r >= 8 {
		x := binary.BigEndian.Uint64(b.buf[b.r:])
		b.v |= x >> b.n
		k := (63 - b.n) >> 3
		b.r += int(k)
		b.n += k * 8
		return
	}
	b.fillSlow()
}

func (b *bitReader) fillSlow() {
	for b.n <= 56 {
		if b.r == b.w {
			b.load()
			if b.r == b.w {
				// Past the end: zeros, counted. Cap pad so it cannot grow
				// without bound while a caller keeps asking.
				if b.pad < 1<<20 {
					b.pad++
				}
				b.n += 8
				continue
			}
		}
		b.v |= uint64(b.buf[b.r]) << (56 - b.n)
		b.r++
		b.n += 8
	}
}

// peek16 returns the next 16 bits; the caller has filled.
func (b *bitReader) peek16() uint32 { return uint32(b.v >> 48) }

func (b *bitReader) skip(k uint) {
	b.v <<= k
	b.n -= k
}

// bits reads k <= 24 bits, filling as needed.
func (b *bitReader) bits(k uint) uint32 {
	if b.n < k {
		b.fill()
	}
	x := uint32(b.v >> (64 - k))
	b.v <<= k
	b.n -= k
	return x
}

// align drops the bits up to the next byte boundary. Whole bytes are
// loaded into v, so the boundary is n rounded down to a multiple of 8.
func (b *bitReader) align() {
	k := b.n & 7
	b.v <<= k
	b.n -= k
}

// readByte reads a byte at a byte-aligned position (PPMd's range coder and
// block headers). Past the end of input it returns 0 and counts padding.
func (b *bitReader) readByte() byte {
	if b.n < 8 {
		b.fill()
	}
	c := byte(b.v >> 56)
	b.v <<= 8
	b.n -= 8
	return c
}

// inputErr maps the state after an overrun to the right error.
func (b *bitReader) inputErr() error {
	if b.err != nil {
		return b.err
	}
	return errs.Truncated("rar v29 packed data")
}
