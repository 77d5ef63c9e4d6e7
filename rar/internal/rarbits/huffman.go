package rarbits

import "github.com/go-unarc/unarc/internal/errs"

// RAR 2.x and 3.x Huffman codes are canonical, at most 15 bits long, assigned in
// order of (length, symbol). Codes of up to QuickBits bits decode with one
// table lookup; longer ones walk the per-length limits (unrar's
// DecodeLen/DecodePos scheme).
const (
	MaxCodeLen = 15
	QuickBits  = 10
	MaxSyms    = 299 // the main table is the largest (NC30)
)

// Huffman is the decoding table of one canonical code.
type Huffman struct {
	Quick [1 << QuickBits]uint16 // sym<<4 | len; 0: longer than QuickBits or invalid
	Limit [MaxCodeLen + 1]uint32 // left-aligned 16-bit end of codes of each length
	Pos   [MaxCodeLen + 1]uint16 // index in syms of the first code of each length
	Syms  [MaxSyms]uint16
}

// Canonical lays out the canonical code of lengths (low 4 bits used) as
// RAR 2.x–5.0 assign it, in order of (length, symbol): limit[l] is the
// left-aligned 16-bit end of the codes of length l, pos[l] the index in
// syms of its first code, syms[:len(lengths)] the symbols in code order
// (0 past the last). over reports an over-subscribed set, which RAR 2.x
// and 3.x refuse and RAR 5.0 decodes as unrar does; each version fills
// its own quick table from these (unpack50's huffTable.build).
func Canonical(lengths []byte, limit *[MaxCodeLen + 1]uint32, pos *[MaxCodeLen + 1]uint16, syms []uint16) (over bool) {
	var count [MaxCodeLen + 1]uint16
	for _, l := range lengths {
		count[l&15]++
	}
	count[0] = 0
	var code uint32
	next := *pos
	limit[0], next[0] = 0, 0
	for l := 1; l <= MaxCodeLen; l++ {
		code += uint32(count[l]) << (16 - l)
		limit[l] = code
		next[l] = next[l-1] + count[l-1]
	}
	*pos = next
	syms = syms[:len(lengths)]
	clear(syms)
	for s, l := range lengths {
		if l &= 15; l != 0 {
			syms[next[l]] = uint16(s)
			next[l]++
		}
	}
	return code > 1<<16
}

// Build makes the decoding tables from code lengths. An over-subscribed set
// is corrupt; an incomplete one is allowed (unused codes fail on decode).
func (h *Huffman) Build(lengths []byte) error {
	if Canonical(lengths, &h.Limit, &h.Pos, h.Syms[:]) {
		return errs.Corrupt("RAR: over-subscribed Huffman table")
	}
	var code uint32
	clear(h.Quick[:])
	for l := 1; l <= QuickBits; l++ {
		n := 1 << (QuickBits - l)
		count := (h.Limit[l] - h.Limit[l-1]) >> (16 - l)
		for i := h.Pos[l]; i < h.Pos[l]+uint16(count); i++ {
			e := h.Syms[i]<<4 | uint16(l)
			start := int(code >> (16 - QuickBits))
			q := h.Quick[start : start+n]
			for j := range q {
				q[j] = e
			}
			code += 1 << (16 - l)
		}
	}
	return nil
}

// Decode reads one symbol. The caller guarantees at least 16 valid bits
// (or padding) in br. It returns -1 for a code not in the table.
func (h *Huffman) Decode(br *Reader) int {
	v := br.Peek16()
	if e := h.Quick[v>>(16-QuickBits)]; e != 0 {
		br.Skip(uint(e & 15))
		return int(e >> 4)
	}
	return h.DecodeSlow(br, v)
}

// DecodeSlow decodes a code longer than QuickBits from its 16 peeked bits
// v, for Decode and the main loops' inlined lookups; not inlined so that
// they stay small.
//
//go:noinline
func (h *Huffman) DecodeSlow(br *Reader, v uint32) int {
	for l := QuickBits + 1; l <= MaxCodeLen; l++ {
		if v < h.Limit[l] {
			i := uint32(h.Pos[l]) + (v-h.Limit[l-1])>>(16-l)
			br.Skip(uint(l))
			return int(h.Syms[i])
		}
	}
	return -1
}
