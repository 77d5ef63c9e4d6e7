package unpack20

import "github.com/go-unarc/unarc/internal/errs"

// RAR 2.x Huffman codes (as in RAR 3.x) are canonical, at most 15 bits long, assigned in
// order of (length, symbol). Codes of up to quickBits bits decode with one
// table lookup; longer ones walk the per-length limits (unrar's
// DecodeLen/DecodePos scheme).
const (
	maxCodeLen = 15
	quickBits  = 10
	maxSyms    = 298 // the main table is the largest (NC20)
)

type huffman struct {
	quick [1 << quickBits]uint16 // sym<<4 | len; 0: longer than quickBits or invalid
	limit [maxCodeLen + 1]uint32 // left-aligned 16-bit end of codes of each length
	pos   [maxCodeLen + 1]uint16 // index in syms of the first code of each length
	syms  [maxSyms]uint16
}

// build makes the decoding tables from code lengths. An over-subscribed set
// is corrupt; an incomplete one is allowed (unused codes fail on decode).
func (h *huffman) build(lengths []byte) error {
	var count [maxCodeLen + 1]uint16
	for _, l := range lengths {
		count[l&15]++
	}
	count[0] = 0
	var code uint32
	var next [maxCodeLen + 2]uint16
	for l := 1; l <= maxCodeLen; l++ {
		code += uint32(count[l]) << (16 - l)
		if code > 1<<16 {
			return errs.Corrupt("rar v20: over-subscribed Huffman table")
		}
		h.limit[l] = code
		h.pos[l] = next[l]
		next[l+1] = next[l] + count[l]
	}
	for s, l := range lengths {
		if l != 0 {
			h.syms[next[l]] = uint16(s)
			next[l]++
		}
	}
	clear(h.quick[:])
	code = 0
	for l := 1; l <= quickBits; l++ {
		n := 1 << (quickBits - l)
		for i := h.pos[l]; i < h.pos[l]+count[l]; i++ {
			e := h.syms[i]<<4 | uint16(l)
			start := int(code >> (16 - quickBits))
			q := h.quick[start : start+n]
			for j := range q {
				q[j] = e
			}
			code += 1 << (16 - l)
		}
	}
	return nil
}

// decode reads one symbol. The caller guarantees at least 16 valid bits
// (or padding) in br. It returns -1 for a code not in the table.
func (h *huffman) decode(br *bitReader) int {
	v := br.peek16()
	if e := h.quick[v>>(16-quickBits)]; e != 0 {
		br.skip(uint(e & 15))
		return int(e >> 4)
	}
	return h.decodeSlow(br, v)
}

//go:noinline
func (h *huffman) decodeSlow(br *bitReader, v uint32) int {
	for l := quickBits + 1; l <= maxCodeLen; l++ {
		if v < h.limit[l] {
			i := uint32(h.pos[l]) + (v-h.limit[l-1])>>(16-l)
			br.skip(uint(l))
			return int(h.syms[i])
		}
	}
	return -1
}
