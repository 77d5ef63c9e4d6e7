package deflate

import "math/bits"

// Decoding tables (RFC 1951 section 3.2.2 canonical codes).
//
// A table is a primary array indexed by the next pbits input bits (LSB
// first, so codes are stored bit-reversed), followed by subtables for codes
// longer than pbits. Each uint32 entry carries everything the decoder needs
// for one symbol, so the literal/length path costs a single lookup:
//
//	bits  0-3   code length to consume (subtable pointer: pbits)
//	bits  4-8   extra bits that follow (length/distance), or subtable index bits
//	bit   12    eBad: no valid symbol (unused slot, or a reserved symbol)
//	bit   13    eEOB: end of block (symbol 256)
//	bit   14    eSub: pointer to a subtable starting at the value
//	bit   15    eLit: literal byte in the value
//	bits 16-31  value: literal, length base, distance base or subtable offset
const (
	eLenMask   = 0xF
	eExtraShft = 4
	eBad       = 1 << 12
	eEOB       = 1 << 13
	eSub       = 1 << 14
	eLit       = 1 << 15
)

// Primary table widths and array sizes. The arrays are powers of two so an
// index masked with size-1 needs no bounds check; the parts actually used
// are at most 1<<pbits plus the subtables. For a complete code a subtable of
// depth d holds at least d+1 symbols, so the subtables of the 288-symbol
// literal/length code need at most 288/6*32 = 1536 entries beyond the 1024
// primary ones (10 bits, depth <= 5), and those of the 32-symbol distance
// code at most 32/8*128 = 512 beyond 256 (8 bits, depth <= 7).
const (
	litBits  = 10
	litSize  = 4096
	distBits = 8
	distSize = 1024
	clenBits = 7 // the code-length code has codes of at most 7 bits
	clenSize = 1 << clenBits

	maxLit  = 286 // HLIT + 257 may not exceed this (symbols 286, 287 are reserved)
	maxDist = 30  // Deflate; Deflate64 allows 32
)

// tables is the pooled per-Reader scratch for dynamic blocks.
type tables struct {
	lit  [litSize]uint32
	dist [distSize]uint32
	clen [clenSize]uint32
	lens [maxLit + 32]uint8
}

// Entry templates per symbol (without the code length), for Deflate and
// Deflate64 (RFC 1951 section 3.2.5; Deflate64: length symbol 285 is base 3
// with 16 extra bits, distance symbols 30 and 31 are bases 32769 and 49153
// with 14 extra bits).
var (
	litTmpl, litTmpl64   [288]uint32
	distTmpl, distTmpl64 [32]uint32
	clenTmpl             [19]uint32

	fixedLit, fixedLit64   tableLit
	fixedDist, fixedDist64 tableDist
)

type (
	tableLit  = [litSize]uint32
	tableDist = [distSize]uint32
)

var lenBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}

var lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

var distBase = [32]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
	32769, 49153}

func init() {
	for i := range 256 {
		litTmpl[i] = uint32(i)<<16 | eLit
	}
	litTmpl[256] = eEOB
	for i := range 29 {
		litTmpl[257+i] = uint32(lenBase[i])<<16 | uint32(lenExtra[i])<<eExtraShft
	}
	litTmpl[286], litTmpl[287] = eBad, eBad
	litTmpl64 = litTmpl
	litTmpl64[285] = 3<<16 | 16<<eExtraShft
	for i := range 32 {
		x := uint32(0)
		if i >= 4 {
			x = uint32(i/2 - 1)
		}
		distTmpl64[i] = uint32(distBase[i])<<16 | x<<eExtraShft
	}
	distTmpl = distTmpl64
	distTmpl[30], distTmpl[31] = eBad, eBad
	for i := range clenTmpl {
		clenTmpl[i] = uint32(i) << 16
	}

	// Fixed codes, RFC 1951 section 3.2.6.
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	var d [32]uint8
	for i := range d {
		d[i] = 5
	}
	if !build(fixedLit[:], litBits, l[:], litTmpl[:]) ||
		!build(fixedLit64[:], litBits, l[:], litTmpl64[:]) ||
		!build(fixedDist[:], distBits, d[:], distTmpl[:]) ||
		!build(fixedDist64[:], distBits, d[:], distTmpl64[:]) {
		panic("deflate: fixed tables")
	}
}

// build fills t for the code with the given code lengths (0 = unused);
// tmpl[sym] supplies the entry bits besides the length. It reports false
// for an over-subscribed or incomplete code. Like zlib and compress/flate
// it accepts an empty code (any use of it fails later) and a single code
// of length 1 (its unused half decodes as eBad).
func build(t []uint32, pbits uint, lens []uint8, tmpl []uint32) bool {
	var count [16]int
	minL, maxL := 0, 0
	for _, n := range lens {
		if n == 0 {
			continue
		}
		if minL == 0 || int(n) < minL {
			minL = int(n)
		}
		maxL = max(maxL, int(n))
		count[n]++
	}
	psize := 1 << pbits
	prim := t[:psize]
	if maxL == 0 {
		for i := range prim {
			prim[i] = eBad
		}
		return true
	}
	var next [16]int
	code := 0
	for i := minL; i <= maxL; i++ {
		code <<= 1
		next[i] = code
		code += count[i]
	}
	if code != 1<<maxL {
		if code != 1 || maxL != 1 {
			return false
		}
		for i := range prim {
			prim[i] = eBad
		}
	}

	// Subtables: one per primary slot that prefixes longer codes, sized
	// for the longest of them.
	var codes [288]uint16
	var depth [1 << litBits]uint8
	for s, n := range lens {
		if n == 0 {
			continue
		}
		c := next[n]
		next[n]++
		r := bits.Reverse16(uint16(c)) >> (16 - n)
		codes[s] = r
		if uint(n) > pbits {
			p := int(r) & (psize - 1)
			depth[p] = max(depth[p], n-uint8(pbits))
		}
	}
	off := psize
	if maxL > int(pbits) {
		for p := range psize {
			if d := depth[p]; d > 0 {
				prim[p] = uint32(off)<<16 | eSub | uint32(d)<<eExtraShft | uint32(pbits)
				off += 1 << d
			}
		}
		if off > len(t) {
			return false // cannot happen for a complete code (see litSize)
		}
	}
	for s, n := range lens {
		if n == 0 {
			continue
		}
		e := tmpl[s] | uint32(n)
		r := int(codes[s])
		if uint(n) <= pbits {
			for j := r; j < psize; j += 1 << n {
				prim[j] = e
			}
			continue
		}
		p := prim[r&(psize-1)]
		base, d := int(p>>16), int(p>>eExtraShft&31)
		sub := t[base : base+1<<d]
		for j := r >> pbits; j < len(sub); j += 1 << (int(n) - int(pbits)) {
			sub[j] = e
		}
	}
	return true
}
