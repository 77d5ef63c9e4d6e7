package unpack50

import "github.com/go-unarc/unarc/rar/internal/rarbits"

// Huffman decoding, RAR 5.0 style.
//
// RAR 5.0 codes are canonical: codes of length 1..15 are handed out in
// order of length, then symbol index. unrar does not reject over-subscribed
// or incomplete tables; it decodes every 15-bit window to some symbol. A
// real archive in the corpus (libarchive's bad_tables.rar) relies on that,
// so decodeTable reproduces unrar's mapping exactly rather than refusing
// such tables: bit windows past the last code take 15 bits and decode to
// the first symbol in code order (or 0 where unrar's quick table says so).

const maxCodeLen = 15

const maxQuickBits = 10

// huffTable maps a bit window to (symbol, length).
//
// quick[prefix] holds sym<<4 | len for every quickBits-bit prefix whose code
// is at most quickBits long; 0 sends the decoder to slow(), which walks the
// per-length limits like unrar's DecodeNumber.
type huffTable struct {
	quick     [1 << maxQuickBits]uint16 // first 1<<quickBits entries used
	quickBits uint
	qshift    uint // 64 - quickBits
	unrarQB   uint // unrar's own quick bits: decides which fallback symbol invalid codes get

	size  int                 // alphabet size
	limit [16]uint32          // left-aligned (16-bit) exclusive upper code per length
	pos   [16]uint16          // first index in syms per length
	syms  [maxAlphabet]uint16 // symbols in code order
}

const maxAlphabet = 306

// build fills t from code lengths (low 4 bits used), mirroring unrar's
// MakeDecodeTables: the canonical layout is rarbits.Canonical's (shared
// with RAR 2.x/3.x); the quick table stays here because RAR 5.0 gives
// invalid codes unrar's fallback symbols instead of failing, and its width
// varies per table.
func (t *huffTable) build(lengths []byte, quickBits, unrarQB uint) {
	n := len(lengths)
	t.size = n
	t.quickBits = quickBits
	t.qshift = 64 - quickBits
	t.unrarQB = unrarQB
	// unrar's MakeDecodeTables does not refuse an over-subscribed set.
	_ = rarbits.Canonical(lengths, &t.limit, &t.pos, t.syms[:])
	// Quick table: one entry per quickBits prefix.
	l := uint(1)
	for code := uint32(0); code < 1<<quickBits; code++ {
		field := code << (16 - quickBits)
		for l < 16 && field >= t.limit[l] {
			l++
		}
		if l > quickBits {
			// All longer prefixes are slow too (limits are monotonic).
			for c := code; c < 1<<quickBits; c++ {
				t.quick[c] = 0
			}
			break
		}
		t.quick[code] = t.symFor(field, l)<<4 | uint16(l)
	}
}

// symFor returns the symbol unrar yields for the left-aligned bit field
// whose code length is l.
func (t *huffTable) symFor(field uint32, l uint) uint16 {
	dist := (field - t.limit[l-1]) >> (16 - l)
	p := uint32(t.pos[l]) + dist
	if field < t.limit[t.unrarQB] {
		// unrar's quick path: out-of-range positions give symbol 0.
		if l < 16 && p < uint32(t.size) {
			return t.syms[p]
		}
		return 0
	}
	if p >= uint32(t.size) {
		p = 0
	}
	return t.syms[p]
}

// slow decodes a code longer than quickBits from the 16-bit left-aligned
// window field, returning symbol and length (unrar's DecodeNumber).
func (t *huffTable) slow(field uint32) (uint16, uint) {
	field &= 0xfffe
	l := uint(15)
	for i := t.quickBits + 1; i < 15; i++ {
		if field < t.limit[i] {
			l = i
			break
		}
	}
	// Slow path in unrar is only reached for fields >= limit[unrarQB];
	// quickBits >= unrarQB guarantees that here.
	dist := (field - t.limit[l-1]) >> (16 - l)
	p := uint32(t.pos[l]) + dist
	if p >= uint32(t.size) {
		p = 0
	}
	return t.syms[p], l
}

// slowBits is slow for a 64-bit buffer, kept out of line so that the
// hot loop's inline quick lookups stay small.
//
//go:noinline
func (t *huffTable) slowBits(bits uint64) (uint, uint) {
	s, l := t.slow(uint32(bits >> 48))
	return uint(s), l
}
