package sevenzip

import (
	"encoding/binary"

	"github.com/go-unarc/unarc/internal/errs"
)

// hreader reads the primitive types of a 7z header (DOC/7zFormat.txt,
// "7z format headers"). Errors are sticky: after the first one every read
// returns zero and parse functions check err once per structure.
type hreader struct {
	b   []byte
	off int
	err error
	mem *memAccount // charged for the arrays the parser allocates; nil: none
	// maxEntries bounds the substreams (each is a file's data) before
	// their arrays are allocated; 0: no bound.
	maxEntries int64
}

// alloc charges n bytes the parser is about to allocate for what; it
// reports false (with r.err set) when the index budget is spent.
func (r *hreader) alloc(n int64, what string) bool {
	if r.err != nil {
		return false
	}
	if err := r.mem.charge(n, what); err != nil {
		r.err = err
		return false
	}
	return true
}

func (r *hreader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = errs.Corrupt("7z header: "+format, args...)
	}
}

func (r *hreader) left() int { return len(r.b) - r.off }

func (r *hreader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("truncated at offset %d", r.off)
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *hreader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.left() {
		r.fail("field of %d bytes overruns the header at offset %d", n, r.off)
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *hreader) uint32() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

// number reads 7z's variable-length integer: the count of leading one
// bits of the first byte says how many little-endian bytes follow; the
// first byte's remaining low bits are the value's top bits.
func (r *hreader) number() uint64 {
	first := r.byte()
	mask := byte(0x80)
	var v uint64
	for i := 0; i < 8; i++ {
		if first&mask == 0 {
			high := uint64(first & (mask - 1))
			return v | high<<(8*i)
		}
		v |= uint64(r.byte()) << (8 * i)
		mask >>= 1
	}
	return v
}

// count reads a number that counts items each taking at least minSize
// bytes of the remaining header, so a hostile count cannot make us
// allocate more than the header itself could describe.
func (r *hreader) count(what string, minSize int) int {
	v := r.number()
	if r.err != nil {
		return 0
	}
	limit := uint64(r.left())
	if minSize > 1 {
		limit /= uint64(minSize)
	}
	if minSize == 0 {
		limit = uint64(r.left())*8 + 8
	}
	if v > limit || v > 1<<31 {
		r.fail("%s count %d exceeds what the header can hold", what, v)
		return 0
	}
	return int(v)
}

// size reads a number used as a byte size; sizes beyond 2^62 are corrupt
// (and would overflow offset arithmetic).
func (r *hreader) size() int64 {
	v := r.number()
	if v > 1<<62 {
		r.fail("size %d too large", v)
		return 0
	}
	return int64(v)
}

// bits reads a bit vector of n items, most significant bit first.
func (r *hreader) bits(n int) []bool {
	if n > r.left()*8 {
		r.fail("bit vector of %d items overruns the header", n)
		return nil
	}
	if !r.alloc(int64(n), "bit vector") {
		return nil
	}
	v := make([]bool, n)
	var c byte
	for i := 0; i < n; i++ {
		if i&7 == 0 {
			c = r.byte()
		}
		v[i] = c&(0x80>>uint(i&7)) != 0
	}
	if r.err != nil {
		return nil
	}
	return v
}

// optBits reads the "allAreDefined" byte and, when it is 0, a bit vector.
func (r *hreader) optBits(n int) []bool {
	if r.byte() != 0 {
		if !r.alloc(int64(n), "bit vector") {
			return nil
		}
		v := make([]bool, n)
		for i := range v {
			v[i] = true
		}
		return v
	}
	return r.bits(n)
}

// skipData skips a property's body of size bytes.
func (r *hreader) skip(n uint64) {
	if n > uint64(r.left()) {
		r.fail("property of %d bytes overruns the header", n)
		return
	}
	r.off += int(n)
}
