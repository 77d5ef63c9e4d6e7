// Package implode decodes the ZIP Implode method (method 6, APPNOTE 5.3):
// LZ77 over a 4 KiB or 8 KiB window (general-purpose flag bit 1) with
// Shannon-Fano coded lengths and distances and, when flag bit 2 is set,
// Shannon-Fano coded literals (otherwise literals are 8 plain bits).
//
// The stream starts with the trees, literal (if present), length, then
// distance, each as a byte count minus one and that many bytes of
// (count-1)<<4 | (bit length-1) runs over its 256 or 64 symbols. Codes
// are canonical (shorter first, then in symbol order) and stored most
// significant bit first with every bit inverted, in a stream read least
// significant bit first: the reversed, inverted bit order Info-ZIP's
// explode and 7-Zip read PKZIP's output with. A 1 bit is a literal; a 0
// bit a match: the distance's low 6 bits (4 KiB window) or 7 bits (8 KiB)
// plain, its high 6 bits from the distance tree, then the length from the
// length tree (symbol 63 adds 8 plain bits), plus 3 with a literal tree
// and 2 without. A match reaching before the start reads zeros, as both
// tools read it.
//
// The stream has no end marker: it ends when the declared size has been
// produced. Malformed data is ErrCorrupt, an early end ErrTruncated.
package implode

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/ringout"
)

const (
	ringSize = 32 << 10 // a power of two above the window plus the longest match
	ringMask = ringSize - 1
	maxMatch = 3 + 63 + 255
	maxLen   = 16   // the longest code: 4 bits of length-1
	maxNodes = 4096 // internal nodes of a 256-symbol tree with codes up to 16 bits
	pbits    = 8    // primary table bits
)

// A tree decodes one Shannon-Fano code: a primary table on the next 8
// bits, then a binary tree for longer codes. A child is 0 (no code), a
// leaf (leafBit | symbol) or an internal node's index.
type tree struct {
	primary [1 << pbits]uint32
	child   [maxNodes][2]uint16
}

const (
	leafBit = 0x8000
	// primary entries: kind<<16 | bits<<8 | symbol, or kind<<16 | node
	kindNone = 0
	kindLeaf = 1
	kindNode = 2
)

type tables struct {
	lit, length, dist tree
	lens              [256]uint8
	ring              [ringSize]byte
}

var tablePool = pool.Of[tables]{}

var errClosed = errs.Corrupt("implode: read after Close")

// Memory is what a Reader holds while it decodes, for memory limits.
const Memory = int64(3*(4<<pbits+4*maxNodes)+256+ringSize) + 4<<10

// Reader decodes one Implode stream. Reset reuses it for the next stream;
// Close returns its tables to the pool.
type Reader struct {
	ringout.Decoder // Read, WriteTo; W, R, Left, Err; Br
	t               *tables
	lowBits         uint // plain low distance bits: 6 or 7
	literals        bool // a literal tree is present
	minMatch        int
}

// NewReader returns a decoder of an Implode stream that decodes to size
// bytes. bigWindow is general-purpose flag bit 1 (8 KiB window), literals
// flag bit 2 (three trees).
func NewReader(r io.Reader, size int64, bigWindow, literals bool) *Reader {
	z := new(Reader)
	z.Reset(r, size, bigWindow, literals)
	return z
}

// Reset makes z decode a new stream from r.
func (z *Reader) Reset(r io.Reader, size int64, bigWindow, literals bool) {
	tablePool.Hold(&z.t)
	z.Init(z.t.ring[:], z, r, "implode data", size)
	z.lowBits, z.literals, z.minMatch = 6, literals, 2
	if bigWindow {
		z.lowBits = 7
	}
	if literals {
		z.minMatch = 3
	}
	if size < 0 {
		z.Err = errs.Corrupt("implode: negative size")
	}
}

// Close returns the tables and input buffer to their pools. Reading after
// Close fails.
func (z *Reader) Close() error {
	tablePool.Drop(&z.t)
	z.End(errClosed)
	return nil
}

// readTree reads one tree description of n symbols and builds t.
func (z *Reader) readTree(t *tree, n int, name string) error {
	nb, err := z.Br.Read(8)
	if err != nil {
		return err
	}
	lens := z.t.lens[:n]
	k := 0
	for range nb + 1 {
		b, err := z.Br.Read(8)
		if err != nil {
			return err
		}
		l, c := uint8(b&15+1), int(b>>4+1)
		if k+c > n {
			return errs.Corrupt("implode: %s tree describes more than %d codes", name, n)
		}
		for i := range c {
			lens[k+i] = l
		}
		k += c
	}
	if k != n {
		return errs.Corrupt("implode: %s tree describes %d of %d codes", name, k, n)
	}
	if !t.build(lens) {
		return errs.Corrupt("implode: %s tree is oversubscribed", name)
	}
	return nil
}

// build makes t decode the canonical code with the given lengths (each
// 1..16) and reports false if the lengths are oversubscribed. An
// incomplete code is accepted; its unused codes are corrupt data.
func (t *tree) build(lens []uint8) bool {
	var count [maxLen + 1]int
	for _, l := range lens {
		count[l]++
	}
	left := 1
	for l := 1; l <= maxLen; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false
		}
	}
	var next [maxLen + 2]int
	code := 0
	for l := 1; l <= maxLen; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	clear(t.child[:])
	nodes := 1
	for sym, l := range lens {
		c := next[l]
		next[l]++
		node := 0
		for i := int(l) - 1; i >= 0; i-- {
			bit := (c>>i)&1 ^ 1 // stored inverted
			if i == 0 {
				t.child[node][bit] = leafBit | uint16(sym)
				break
			}
			v := t.child[node][bit]
			if v == 0 {
				v = uint16(nodes)
				nodes++
				t.child[node][bit] = v
			}
			node = int(v)
		}
	}
	for p := range 1 << pbits {
		node := 0
		e := uint32(kindNone) << 16
		for i := range pbits {
			v := t.child[node][p>>i&1]
			if v == 0 {
				break
			}
			if v&leafBit != 0 {
				e = kindLeaf<<16 | uint32(i+1)<<8 | uint32(v&^leafBit)
				break
			}
			node = int(v)
			if i == pbits-1 {
				e = kindNode<<16 | uint32(node)
			}
		}
		t.primary[p] = e
	}
	return true
}

// decode reads one symbol of t.
func (z *Reader) decode(t *tree) (int, error) {
	br := &z.Br
	if br.N < pbits {
		br.Fill()
	}
	node := 0
	if br.N >= pbits {
		e := t.primary[br.Bits&(1<<pbits-1)]
		switch e >> 16 {
		case kindLeaf:
			br.Drop(uint(e >> 8 & 0xFF))
			return int(e & 0xFF), nil
		case kindNode:
			br.Drop(pbits)
			node = int(e & 0xFFFF)
		default:
			return 0, errs.Corrupt("implode: unused code")
		}
	}
	for {
		b, err := br.Read(1)
		if err != nil {
			return 0, err
		}
		v := t.child[node][b]
		switch {
		case v == 0:
			return 0, errs.Corrupt("implode: unused code")
		case v&leafBit != 0:
			return int(v &^ leafBit), nil
		}
		node = int(v)
	}
}

// Header reads the trees, for ringout.Decoder.
func (z *Reader) Header() error {
	t := z.t
	if z.literals {
		if err := z.readTree(&t.lit, 256, "literal"); err != nil {
			return err
		}
	}
	if err := z.readTree(&t.length, 64, "length"); err != nil {
		return err
	}
	return z.readTree(&t.dist, 64, "distance")
}

// Decode is for ringout.Decoder: it decodes until the ring holds as much
// undelivered data as it safely can, or the stream ends.
func (z *Reader) Decode() error {
	t := z.t
	br := &z.Br
	for lim := z.Limit(maxMatch); z.Left > 0 && z.W < lim; {
		if br.N < 1+8 {
			br.Fill()
		}
		bit, err := br.Read(1)
		if err != nil {
			return err
		}
		if bit == 1 {
			var c int
			if z.literals {
				c, err = z.decode(&t.lit)
			} else {
				var v uint32
				v, err = br.Read(8)
				c = int(v)
			}
			if err != nil {
				return err
			}
			t.ring[z.W&ringMask] = byte(c)
			z.W++
			z.Left--
			continue
		}
		low, err := br.Read(z.lowBits)
		if err != nil {
			return err
		}
		high, err := z.decode(&t.dist)
		if err != nil {
			return err
		}
		n, err := z.decode(&t.length)
		if err != nil {
			return err
		}
		if n == 63 {
			extra, err := br.Read(8)
			if err != nil {
				return err
			}
			n += int(extra)
		}
		n = int(min(int64(n+z.minMatch), z.Left))
		dist := uint64(high)<<z.lowBits + uint64(low) + 1
		z.Copy(dist, n)
	}
	return nil
}
