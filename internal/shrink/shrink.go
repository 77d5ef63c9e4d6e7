// Package shrink decodes the ZIP Shrink method (method 1, APPNOTE 5.1):
// dynamic LZW with codes of 9 to 13 bits, packed least significant bit
// first. Code 256 is a control code: 256 followed by 1 raises the code
// size by one bit, 256 followed by 2 is a partial clear, which frees every
// code that is not the prefix of another code (the leaves of the string
// tree); freed codes are reused lowest first.
//
// Two things differ from textbook LZW and follow what PKZIP writes (as
// Info-ZIP's unshrink and 7-Zip read it): a new string is defined when
// the next code is read, as the previous code's string plus the first
// byte of the current one, in the lowest free code; and after a partial
// clear that previous code may itself have been freed, so a string can
// point at a free code and means whatever that code holds when it is used.
//
// The stream has no end marker: it ends when the declared size has been
// produced. Every malformed stream is ErrCorrupt, an early end ErrTruncated.
package shrink

import (
	"io"
	"math/bits"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lsb"
	"github.com/go-unarc/unarc/internal/pool"
)

const (
	minBits  = 9
	maxBits  = 13
	numCodes = 1 << maxBits // 8192
	control  = 256
	first    = 257 // the first code a string can have
	free     = 0xFFFF
)

const words = numCodes / 64

// tables is the pooled state: the string table (prefix code and last byte
// of each string), and the bytes of the string being delivered, written
// back to front. A partial clear must not cost a pass over the whole
// table (a hostile stream can ask for one every 18 bits), so the table
// keeps, per code, how many defined strings extend it, and bitmaps of the
// defined codes, of the codes nothing extends (the ones a clear frees),
// and of the free codes still to hand out, lowest first.
type tables struct {
	prefix   [numCodes]uint16
	suffix   [numCodes]byte
	children [numCodes]uint16
	defined  [words]uint64
	leaf     [words]uint64
	queue    [words]uint64
	stage    [numCodes + 1]byte
}

var tablePool = pool.Of[tables]{}

var errClosed = errs.Corrupt("shrink: read after Close")

// Memory is what a Reader holds while it decodes, for memory limits.
const Memory = int64(6*numCodes+1+3*words*8) + 4<<10

// Reader decodes one Shrink stream. Reset reuses it for the next stream;
// Close returns its tables to the pool.
type Reader struct {
	br    lsb.Reader
	t     *tables
	size  int64 // bytes still to produce
	bits  uint  // current code size
	prev  int   // previous code, -1 before the first
	qword int   // t.queue has no bits below word qword
	sp    int   // t.stage[sp:] is the undelivered rest of the current string
	first byte  // the first byte of the last string
	err   error
	n0    int64 // the stream's size (checkpoints: Total)
	pause int64 // Read returns once this much is delivered (checkpoints); 0: never
}

// NewReader returns a decoder of a Shrink stream of size decoded bytes.
func NewReader(r io.Reader, size int64) *Reader {
	z := new(Reader)
	z.Reset(r, size)
	return z
}

// Reset makes z decode a new stream of size bytes from r.
func (z *Reader) Reset(r io.Reader, size int64) {
	tablePool.Hold(&z.t)
	z.br.Reset(r, "shrink data")
	t := z.t
	for i := range 256 {
		t.prefix[i] = uint16(i) // literals are valid; their prefix is never read
		t.suffix[i] = byte(i)
	}
	for i := 256; i < numCodes; i++ {
		t.prefix[i] = free
	}
	clear(t.children[:])
	clear(t.defined[:])
	// Before the first partial clear the free codes are 257..8191 in order.
	for i := range words {
		t.queue[i] = ^uint64(0)
	}
	t.queue[first/64] = ^(uint64(1)<<(first%64) - 1)
	for i := range first / 64 {
		t.queue[i] = 0
	}
	t.leaf = t.queue
	z.qword = 0
	z.size, z.bits, z.prev, z.sp, z.err = size, minBits, -1, len(t.stage), nil
	z.n0, z.pause = size, 0
	if size < 0 {
		z.err = errs.Corrupt("shrink: negative size")
	}
}

// Close returns the tables and input buffer to their pools. Reading after
// Close fails.
func (z *Reader) Close() error {
	tablePool.Drop(&z.t)
	z.br.Release()
	z.err = errClosed
	return nil
}

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) {
	if z.t == nil {
		return 0, z.err
	}
	n := 0
	for n < len(p) {
		if z.sp < len(z.t.stage) {
			c := copy(p[n:], z.t.stage[z.sp:])
			z.sp += c
			n += c
			continue
		}
		if z.size == 0 {
			return n, io.EOF
		}
		if z.err != nil {
			return n, z.err
		}
		if n > 0 && z.pause > 0 && z.n0-z.size >= z.pause {
			return n, nil // paused: the caller may take a checkpoint now
		}
		if z.err = z.next(); z.err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, z.err
		}
	}
	return n, nil
}

// WriteTo implements io.WriterTo, writing strings straight from the stage.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	if z.t == nil {
		return 0, z.err
	}
	for {
		if z.sp < len(z.t.stage) {
			n, err := w.Write(z.t.stage[z.sp:])
			z.sp += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if z.size == 0 {
			return total, nil
		}
		if z.err != nil {
			return total, z.err
		}
		z.err = z.next()
	}
}

// code reads the next code, acting on control codes.
func (z *Reader) code() (int, error) {
	for {
		c, err := z.br.Read(z.bits)
		if err != nil {
			return 0, err
		}
		if c != control {
			return int(c), nil
		}
		c, err = z.br.Read(z.bits)
		if err != nil {
			return 0, err
		}
		switch {
		case c == 1 && z.bits < maxBits:
			z.bits++
		case c == 1:
			return 0, errs.Corrupt("shrink: code size above %d bits", maxBits)
		case c == 2:
			z.partialClear()
		default:
			return 0, errs.Corrupt("shrink: control code %d", c)
		}
	}
}

// partialClear frees every string code that no defined string uses as
// its prefix, and makes exactly those codes (defined or not) the free
// queue, lowest first. Codes left without children by this clear are
// freed by the next one, not this one.
func (z *Reader) partialClear() {
	t := z.t
	t.queue = t.leaf
	z.qword = 0
	for w := range words {
		m := t.queue[w] & t.defined[w] // the leaves before this clear
		t.defined[w] &^= m
		for m != 0 {
			c := w*64 + bits.TrailingZeros64(m)
			m &= m - 1
			p := t.prefix[c]
			t.prefix[c] = free
			if p >= first {
				t.children[p]--
				if t.children[p] == 0 {
					t.leaf[p>>6] |= 1 << (p & 63)
				}
			}
		}
	}
}

// nextFree is the lowest code in the free queue, or -1.
func (z *Reader) nextFree() int {
	t := z.t
	for ; z.qword < words; z.qword++ {
		if w := t.queue[z.qword]; w != 0 {
			return z.qword*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// define gives free code c the string of code p plus byte b.
func (z *Reader) define(c int, p int, b byte) {
	t := z.t
	t.queue[c>>6] &^= 1 << (c & 63)
	t.prefix[c], t.suffix[c] = uint16(p), b
	t.defined[c>>6] |= 1 << (c & 63)
	if p >= first {
		if t.children[p] == 0 {
			t.leaf[p>>6] &^= 1 << (p & 63)
		}
		t.children[p]++
	}
}

// next decodes one code into the stage.
func (z *Reader) next() error {
	t := z.t
	if t == nil {
		return errClosed
	}
	c, err := z.code()
	if err != nil {
		return err
	}
	if z.prev < 0 {
		if c > 255 {
			return errs.Corrupt("shrink: first code %d is not a literal", c)
		}
		z.emit(c)
		z.prev = c
		return nil
	}
	nextFree := z.nextFree()
	if nextFree >= 0 {
		if t.prefix[z.prev] != free {
			// The code about to be defined may be used already (KwKwK),
			// directly or as the prefix of a string whose own prefix was
			// cleared: it is the previous string plus its first byte.
			t.prefix[nextFree], t.suffix[nextFree] = uint16(z.prev), z.first
		}
	}
	if t.prefix[c] == free || (c >= first && int(t.prefix[c]) == c) {
		return errs.Corrupt("shrink: undefined code %d", c)
	}
	if !z.emit(c) {
		return errs.Corrupt("shrink: undefined string in code %d", c)
	}
	// Define the next string: the previous one plus this one's first byte.
	// If the previous code was cleared, the new string points at a free
	// code and takes whatever that code is given later.
	if nextFree >= 0 {
		z.define(nextFree, z.prev, z.first)
	}
	z.prev = c
	return nil
}

// emit writes code c's string to the stage, cut to the bytes the stream
// still has to produce, and reports false for a broken prefix chain.
func (z *Reader) emit(c int) bool {
	t := z.t
	sp := len(t.stage)
	for c >= first {
		p := t.prefix[c]
		if p == free || sp == 1 {
			return false
		}
		sp--
		t.stage[sp] = t.suffix[c]
		c = int(p)
	}
	sp--
	t.stage[sp] = byte(c)
	z.first = byte(c)
	if n := int64(len(t.stage) - sp); n > z.size {
		// The stream ends inside this string; deliver only its start.
		copy(t.stage[len(t.stage)-int(z.size):], t.stage[sp:sp+int(z.size)])
		z.sp = len(t.stage) - int(z.size)
		z.size = 0
		return true
	}
	z.sp = sp
	z.size -= int64(len(t.stage) - sp)
	return true
}
