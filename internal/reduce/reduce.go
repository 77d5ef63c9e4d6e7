// Package reduce decodes the ZIP Reduce methods (methods 2 to 5, reduction
// factors 1 to 4, APPNOTE 5.2). A Reduce stream is two layers, both
// least significant bit first:
//
//   - a probabilistic layer: 256 follower sets come first (for byte 255
//     down to 0, a 6-bit count and that many 8-bit followers); then each
//     byte is either coded as an index into the follower set of the byte
//     before it (a 0 bit, then B(n) bits for a set of n), or as a 1 bit
//     and the 8-bit byte itself (always, when the set is empty);
//   - a run layer over those bytes: DLE (144) followed by 0 is a literal
//     144; DLE followed by V starts a match whose length is V's low
//     7, 6, 5 or 4 bits plus 3 (an all-ones field takes one more byte)
//     and whose distance is V's high bits times 256 plus the next byte
//     plus one, up to 4 KiB back.
//
// The stream has no end marker: it ends when the declared size has been
// produced. A match reaching before the start reads zeros, as Info-ZIP and
// 7-Zip read it. Malformed data is ErrCorrupt, an early end ErrTruncated.
package reduce

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/ringout"
)

const (
	dle      = 144
	ringSize = 16 << 10 // a power of two above the longest distance and match
	ringMask = ringSize - 1
	maxMatch = 0x7F + 255 + 3 // factor 1
	maxSet   = 63             // the count is 6 bits (PKZIP writes at most 32)
)

// bitsFor[n] is B(n), the bits of an index into a follower set of n.
var bitsFor = func() (b [maxSet + 1]uint8) {
	for n := 1; n <= maxSet; n++ {
		k := uint8(1)
		for 1<<k < n {
			k++
		}
		b[n] = k
	}
	return
}()

type tables struct {
	sets  [256][maxSet + 1]byte
	count [256]uint8
	ring  [ringSize]byte
}

var tablePool = pool.Of[tables]{}

var errClosed = errs.Corrupt("reduce: read after Close")

// Memory is what a Reader holds while it decodes, for memory limits.
const Memory = int64(256*(maxSet+2)+ringSize) + 4<<10

// Reader decodes one Reduce stream. Reset reuses it for the next stream;
// Close returns its tables to the pool.
type Reader struct {
	ringout.Decoder // Read, WriteTo; W, R, Left, Err; Br
	t               *tables
	factor          uint
	last            byte  // the previous byte of the probabilistic layer
	state           uint8 // run layer: 0 plain, 1 after DLE, 2 length byte, 3 distance byte
	v               byte  // the byte after DLE
	length          int
}

// NewReader returns a decoder of a Reduce stream with the given reduction
// factor (1 to 4: ZIP method minus one) that decodes to size bytes.
func NewReader(r io.Reader, size int64, factor int) *Reader {
	z := new(Reader)
	z.Reset(r, size, factor)
	return z
}

// Reset makes z decode a new stream from r.
func (z *Reader) Reset(r io.Reader, size int64, factor int) {
	tablePool.Hold(&z.t)
	z.Init(z.t.ring[:], z, r, "reduce data", size)
	z.factor = uint(factor)
	z.last, z.state, z.v, z.length = 0, 0, 0, 0
	switch {
	case factor < 1 || factor > 4:
		z.Err = errs.Corrupt("reduce: factor %d", factor)
	case size < 0:
		z.Err = errs.Corrupt("reduce: negative size")
	}
}

// Close returns the tables and input buffer to their pools. Reading after
// Close fails.
func (z *Reader) Close() error {
	tablePool.Drop(&z.t)
	z.End(errClosed)
	return nil
}

// Header reads the follower sets, for ringout.Decoder.
func (z *Reader) Header() error {
	t := z.t
	for j := 255; j >= 0; j-- {
		n, err := z.Br.Read(6)
		if err != nil {
			return err
		}
		t.count[j] = uint8(n)
		for i := range n {
			c, err := z.Br.Read(8)
			if err != nil {
				return err
			}
			t.sets[j][i] = byte(c)
		}
	}
	return nil
}

// Decode is for ringout.Decoder: it decodes until the ring holds as much
// undelivered data as it safely can, or the stream ends.
func (z *Reader) Decode() error {
	t := z.t
	br := &z.Br
	lmask := 0xFF >> z.factor
	for lim := z.Limit(maxMatch); z.Left > 0 && z.W < lim; {
		// The probabilistic layer: one byte.
		if br.N < 1+8 {
			br.Fill()
		}
		var c byte
		n := t.count[z.last]
		if n == 0 {
			v, err := br.Read(8)
			if err != nil {
				return err
			}
			c = byte(v)
		} else {
			bit, err := br.Read(1)
			if err != nil {
				return err
			}
			if bit == 1 {
				v, err := br.Read(8)
				if err != nil {
					return err
				}
				c = byte(v)
			} else {
				i, err := br.Read(uint(bitsFor[n]))
				if err != nil {
					return err
				}
				if i >= uint32(n) {
					return errs.Corrupt("reduce: follower %d of a set of %d", i, n)
				}
				c = t.sets[z.last][i]
			}
		}
		z.last = c
		// The run layer.
		switch z.state {
		case 0:
			if c == dle {
				z.state = 1
				continue
			}
			t.ring[z.W&ringMask] = c
			z.W++
			z.Left--
		case 1:
			if c == 0 {
				t.ring[z.W&ringMask] = dle
				z.W++
				z.Left--
				z.state = 0
				continue
			}
			z.v = c
			z.length = int(c) & lmask
			z.state = 3
			if z.length == lmask {
				z.state = 2
			}
		case 2:
			z.length += int(c)
			z.state = 3
		case 3:
			dist := uint64(z.v>>(8-z.factor))<<8 + uint64(c) + 1
			n := int64(z.length + 3)
			n = min(n, z.Left)
			z.Copy(dist, int(n))
			z.state = 0
		}
	}
	return nil
}
