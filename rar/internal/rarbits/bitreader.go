// Package rarbits holds what the RAR decoders share: for RAR 1.5–4
// (unpack15, unpack20, unpack29) the MSB-first bit Reader, the canonical
// Huffman tables of RAR 2.x and 3.x, and Stream (the pooled window, its
// sizing, Read/WriteTo and the solid-entry rules around each algorithm);
// for RAR 2.0, 2.9 and 5.0 (unpack50 too) the code-length table reader
// (ReadLengths, ReadBitLengths).
package rarbits

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// inBufSize is the input buffer: big enough that refills are rare, small
// enough to stay in L2.
const inBufSize = 64 << 10

// Reader reads RAR's MSB-first bit stream from an io.Reader. Bits are
// kept left-aligned in V; N counts the valid ones. When the source ends it
// appends zero bytes and counts them in Pad, so a decoder can tell a
// stream that ran past its end (Pad*8 > N, see Overrun) from one that
// ended cleanly.
//
// V, N and Pad are exported because the v15/v20/v29 main loops read and
// consume bits from them directly (the Huffman quick-table lookup inlined
// by hand, keeping V and N in registers across a symbol); everything else
// goes through the methods. The hot-loop contract: read V only after a
// Fill that left N >= the bits taken, and a caller that shifts V must
// lower N by the same count; Pad is only read (through Overrun).
// unpack50 has its own reader (see its bitReader for why).
type Reader struct {
	src  io.Reader
	bufp *[]byte
	buf  []byte
	r, w int    // unread input is buf[r:w]
	base int64  // input bytes consumed before buf[0] (BitPos)
	V    uint64 // next bits, MSB first
	N    uint   // valid bits in V
	Pad  int    // zero bytes appended after the source ended
	eof  bool   // src returned io.EOF
	err  error  // a read error other than io.EOF
}

// Reset starts reading src, taking the input buffer from the pool on
// first use.
func (b *Reader) Reset(src io.Reader) {
	if b.bufp == nil {
		b.bufp = pool.Get(inBufSize)
		b.buf = *b.bufp
	}
	b.src = src
	b.r, b.w = 0, 0
	b.base = 0
	b.V, b.N = 0, 0
	b.Pad = 0
	b.eof = false
	b.err = nil
}

// ResetAt is Reset for a source that starts at byte bitPos/8 of the
// stream: BitPos counts from the stream's start, and the first bitPos%8
// bits of src are dropped (a decoder checkpoint resumes mid-byte).
func (b *Reader) ResetAt(src io.Reader, bitPos int64) {
	b.Reset(src)
	b.base = bitPos >> 3
	if k := uint(bitPos & 7); k > 0 {
		b.Fill()
		b.Skip(k)
	}
}

// BitPos is the position, in bits from the start of the stream, of the
// next bit a decoder takes (zero padding past the end counts as input;
// see Overrun).
func (b *Reader) BitPos() int64 {
	return (b.base+int64(b.r)+int64(b.Pad))*8 - int64(b.N)
}

// Release returns the input buffer to the pool and drops src; Reset
// makes b usable again.
func (b *Reader) Release() {
	if b.bufp != nil {
		pool.Put(b.bufp)
		b.bufp, b.buf = nil, nil
	}
	b.src = nil
}

// Overrun reports whether bits past the end of the input were consumed.
func (b *Reader) Overrun() bool { return b.Pad > 0 && uint(b.Pad)*8 > b.N }

// Load reads more input into buf, keeping buf[r:w].
func (b *Reader) Load() {
	if b.eof || b.err != nil {
		return
	}
	if b.r > 0 {
		b.base += int64(b.r)
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

// Fill tops V up to at least 56 valid bits (past the end of input with
// counted zero padding).
func (b *Reader) Fill() {
	if b.w-b.r >= 8 {
		x := binary.BigEndian.Uint64(b.buf[b.r:])
		b.V |= x >> b.N
		k := (63 - b.N) >> 3
		b.r += int(k)
		b.N += k * 8
		return
	}
	b.FillSlow()
}

// FillSlow is Fill a byte at a time, for the last bytes of the buffer and
// the end of input; kept apart so Fill inlines.
func (b *Reader) FillSlow() {
	for b.N <= 56 {
		if b.r == b.w {
			b.Load()
			if b.r == b.w {
				// Past the end: zeros, counted. Cap pad so it cannot grow
				// without bound while a caller keeps asking.
				if b.Pad < 1<<20 {
					b.Pad++
				}
				b.N += 8
				continue
			}
		}
		b.V |= uint64(b.buf[b.r]) << (56 - b.N)
		b.r++
		b.N += 8
	}
}

// Peek16 returns the next 16 bits; the caller has filled.
func (b *Reader) Peek16() uint32 { return uint32(b.V >> 48) }

// Skip drops k bits; the caller has filled at least k.
func (b *Reader) Skip(k uint) {
	b.V <<= k
	b.N -= k
}

// Slot is base plus the next k extra bits of a length or distance slot
// (k may be 0: a shift by 64 is 0 in Go); the caller has filled at least
// k. It inlines, so the v20 and v29 main loops read their slots with it.
func (b *Reader) Slot(base, k uint8) uint32 {
	v := uint32(base) + uint32(b.V>>(64-uint(k)))
	b.V <<= k
	b.N -= uint(k)
	return v
}

// Bits reads k <= 24 bits, filling as needed.
func (b *Reader) Bits(k uint) uint32 {
	if b.N < k {
		b.Fill()
	}
	x := uint32(b.V >> (64 - k))
	b.V <<= k
	b.N -= k
	return x
}

// Align drops the bits up to the next byte boundary. Whole bytes are
// loaded into V, so the boundary is N rounded down to a multiple of 8.
func (b *Reader) Align() {
	k := b.N & 7
	b.V <<= k
	b.N -= k
}

// Byte reads a byte at a byte-aligned position (PPMd's range coder and
// block headers). Past the end of input it returns 0 and counts padding.
func (b *Reader) Byte() byte {
	if b.N < 8 {
		b.Fill()
	}
	c := byte(b.V >> 56)
	b.V <<= 8
	b.N -= 8
	return c
}

// InputErr maps the state after an overrun to the right error.
func (b *Reader) InputErr() error {
	if b.err != nil {
		return b.err
	}
	return errs.Truncated("RAR packed data")
}

// AtLeast reports whether at least k bits of real input remain unread.
func (b *Reader) AtLeast(k int) bool {
	for {
		if (b.w-b.r)*8+int(b.N)-b.Pad*8 >= k {
			return true
		}
		if b.eof || b.err != nil {
			return false
		}
		b.Load()
	}
}
