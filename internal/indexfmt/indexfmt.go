// Package indexfmt holds the pieces the persistable index (the root's
// Archive.Index) shares between the root container and the format
// payloads: a bounded binary encoder/decoder and the digest of an
// archive's header regions.
//
// Everything decoded here is untrusted: every count and length is
// checked against the bytes really left before anything is allocated
// for it, and errors match arc.ErrStaleIndex (so errs.ErrCorrupt).
package indexfmt

import (
	"encoding/binary"
	"io"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/pool"
)

// Encoder appends values to a byte slice.
type Encoder struct{ B []byte }

func (e *Encoder) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }
func (e *Encoder) Varint(v int64)   { e.B = binary.AppendVarint(e.B, v) }
func (e *Encoder) Byte(v byte)      { e.B = append(e.B, v) }
func (e *Encoder) Raw(b []byte)     { e.B = append(e.B, b...) }

// Bytes appends a length-prefixed byte string.
func (e *Encoder) Bytes(b []byte) {
	e.Uvarint(uint64(len(b)))
	e.B = append(e.B, b...)
}

// Decoder reads what Encoder wrote; the first failure sticks in Err and
// every later read returns zero values.
type Decoder struct {
	B   []byte
	Err error
}

// Fail records a damaged-index error (the first one sticks).
func (d *Decoder) Fail(what string) { d.fail(what) }

func (d *Decoder) fail(what string) {
	if d.Err == nil {
		d.Err = engine.Stale("damaged index: " + what)
	}
	d.B = nil
}

func (d *Decoder) Uvarint(what string) uint64 { return varint(d, what, binary.Uvarint) }

func (d *Decoder) Varint(what string) int64 { return varint(d, what, binary.Varint) }

// varint reads one varint with read (binary.Uvarint or binary.Varint).
func varint[T uint64 | int64](d *Decoder, what string, read func([]byte) (T, int)) T {
	v, n := read(d.B)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.B = d.B[n:]
	return v
}

func (d *Decoder) Byte(what string) byte {
	if len(d.B) < 1 {
		d.fail(what)
		return 0
	}
	c := d.B[0]
	d.B = d.B[1:]
	return c
}

// Raw returns the next n bytes (a sub-slice, not a copy).
func (d *Decoder) Raw(n int, what string) []byte {
	if n < 0 || n > len(d.B) {
		d.fail(what)
		return nil
	}
	b := d.B[:n:n]
	d.B = d.B[n:]
	return b
}

// Bytes returns a length-prefixed byte string (a sub-slice).
func (d *Decoder) Bytes(what string) []byte {
	n := d.Uvarint(what)
	if n > uint64(len(d.B)) {
		d.fail(what)
		return nil
	}
	return d.Raw(int(n), what)
}

// Count reads a count of items each at least minSize bytes long and
// fails when the bytes left cannot hold them or it passes max.
func (d *Decoder) Count(minSize, max int, what string) int {
	n := d.Uvarint(what)
	if n > uint64(max) || n*uint64(max1(minSize)) > uint64(len(d.B)) {
		d.fail(what)
		return 0
	}
	return int(n)
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// Range is a byte range of an archive: Off, Len.
type Range struct{ Off, Len int64 }

// MaxRanges bounds the ranges one digest covers.
const MaxRanges = 256

// spanCap is the part of a range that is hashed: a range longer than
// 2*spanCap is hashed by its first and last spanCap bytes (with its
// length), so checking an index reads bounded bytes however large the
// header is.
const spanCap = 1 << 20

// Digest returns the BLAKE3-256 of the given ranges of ra (each range's
// offset and length, then its bytes, capped as spanCap says). A range
// outside [0, size) fails with arc.ErrStaleIndex.
func Digest(ra io.ReaderAt, size int64, ranges []Range) ([32]byte, error) {
	return digest(ra, size, ranges, true)
}

// DigestAll is Digest over every byte of the ranges, however long: what
// an index stores beside Digest for the check Partial ranges leave for
// later (Later).
func DigestAll(ra io.ReaderAt, size int64, ranges []Range) ([32]byte, error) {
	return digest(ra, size, ranges, false)
}

// Partial reports whether Digest hashes a range of ranges by its ends
// only (so DigestAll is another digest).
func Partial(ranges []Range) bool {
	for _, r := range ranges {
		if r.Len > 2*spanCap {
			return true
		}
	}
	return false
}

func digest(ra io.ReaderAt, size int64, ranges []Range, capped bool) ([32]byte, error) {
	var sum [32]byte
	h := blake3.New()
	bufp := pool.Get(64 << 10)
	defer pool.Put(bufp)
	buf := (*bufp)[:64<<10]
	var hdr [16]byte
	for _, r := range ranges {
		if r.Off < 0 || r.Len < 0 || r.Off > size || r.Len > size-r.Off {
			return sum, engine.Stale("a header region lies outside the archive")
		}
		binary.LittleEndian.PutUint64(hdr[:], uint64(r.Off))
		binary.LittleEndian.PutUint64(hdr[8:], uint64(r.Len))
		h.Write(hdr[:])
		spans := []Range{r}
		if capped && r.Len > 2*spanCap {
			spans = []Range{{r.Off, spanCap}, {r.Off + r.Len - spanCap, spanCap}}
		}
		for _, s := range spans {
			for off, end := s.Off, s.Off+s.Len; off < end; {
				m := int(min(int64(len(buf)), end-off))
				n, err := ra.ReadAt(buf[:m], off)
				if n < m {
					if err == nil || err == io.EOF {
						return sum, engine.Stale("the archive is shorter than its index says")
					}
					return sum, err
				}
				h.Write(buf[:m])
				off += int64(m)
			}
		}
	}
	h.Sum(sum[:0])
	return sum, nil
}

// PutRanges appends ranges and their digest.
func PutRanges(e *Encoder, ranges []Range, sum [32]byte) {
	e.Uvarint(uint64(len(ranges)))
	for _, r := range ranges {
		e.Uvarint(uint64(r.Off))
		e.Uvarint(uint64(r.Len))
	}
	e.Raw(sum[:])
}

// CheckRanges reads ranges and their digest, checks them against ra and
// returns the ranges (for an index made again from the reopened archive).
func CheckRanges(d *Decoder, ra io.ReaderAt, size int64) ([]Range, error) {
	n := d.Count(2, MaxRanges, "header ranges")
	ranges := make([]Range, n)
	for i := 0; i < n; i++ {
		off, ln := d.Uvarint("range offset"), d.Uvarint("range length")
		if off > 1<<62 || ln > 1<<62 {
			d.fail("range")
		}
		ranges[i] = Range{int64(off), int64(ln)}
	}
	want := d.Raw(32, "header digest")
	if d.Err != nil {
		return nil, d.Err
	}
	got, err := Digest(ra, size, ranges)
	if err != nil {
		return nil, err
	}
	if string(got[:]) != string(want) {
		return nil, engine.Stale("the archive's header regions changed")
	}
	return ranges, nil
}

// Later is a check of an archive opened from an index that the open
// leaves to the first entry acted on (the bytes of header regions that
// the open's digest does not cover): it runs once, and its result is
// kept. A nil *Later checks nothing.
type Later struct {
	once sync.Once
	fn   func() error
	err  error
}

// NewLater returns the Later that runs fn.
func NewLater(fn func() error) *Later { return &Later{fn: fn} }

// Check runs the check the first time and returns its result.
func (l *Later) Check() error {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.err = l.fn(); l.fn = nil })
	return l.err
}

// CheckLater returns the Later that compares DigestAll of ranges with
// want (what the format says, when it fails), or nil when the open's
// digest of them already covered every byte (partial false). A zero
// want (an index older than the full digest) fails the check.
func CheckLater(ra io.ReaderAt, size int64, ranges []Range, want [32]byte, partial bool, what string) *Later {
	if !partial {
		return nil
	}
	return NewLater(func() error {
		if want == ([32]byte{}) {
			return engine.Stale(what + ": the index (version 1) holds no digest of all its header regions; make it again")
		}
		got, err := DigestAll(ra, size, ranges)
		if err != nil {
			return err
		}
		if got != want {
			return engine.Stale(what + ": the archive's header regions changed")
		}
		return nil
	})
}
