package bzip2

import (
	"encoding/binary"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Block format limits (bzip2 1.0.x: BZ_N_GROUPS, BZ_MAX_ALPHA_SIZE,
// BZ_MAX_CODE_LEN, BZ_MAX_SELECTORS, BZ_G_SIZE).
const (
	maxGroups    = 6
	maxAlpha     = 258
	maxCodeLen   = 20
	maxSelectors = 18002
	groupSize    = 50

	primBits = 10 // first-level Huffman lookup
)

// huff is one Huffman table: a 10-bit first-level lookup, and canonical
// limits for the longer codes.
type huff struct {
	prim  [1 << primBits]uint16 // sym<<5 | len for codes of up to 10 bits; 0: longer
	limit [maxCodeLen + 1]uint32
	first [maxCodeLen + 1]uint32 // first code of each length
	offs  [maxCodeLen + 1]uint16 // index in perm of the first code of each length
	perm  [maxAlpha]uint16       // symbols ordered by (length, symbol)
	max   uint                   // longest code
}

// decoder is the per-block scratch: tables, selectors, symbol map and
// counts. Pooled; one per Reader and one per parallel worker.
type decoder struct {
	tabs   [maxGroups]huff
	sel    [maxSelectors]uint8
	lens   [maxAlpha]uint8
	unseq  [256]byte
	counts [256]int32
	w      walker
}

var decoders = pool.Of[decoder]{}

// build makes t from code lengths lens (each 1..20). An over-subscribed
// set of lengths is corrupt; an incomplete one is accepted (as bzip2
// does) and its unused codes fail when met.
func (t *huff) build(lens []uint8) error {
	var count [maxCodeLen + 1]uint32
	for _, l := range lens {
		count[l]++
	}
	var kraft uint32
	for l := 1; l <= maxCodeLen; l++ {
		kraft += count[l] << (maxCodeLen - l)
	}
	if kraft > 1<<maxCodeLen {
		return errs.Corrupt("bzip2: over-subscribed Huffman code")
	}
	code, idx := uint32(0), uint16(0)
	t.max = 0
	for l := 1; l <= maxCodeLen; l++ {
		t.first[l] = code
		t.offs[l] = idx
		code += count[l]
		t.limit[l] = code
		idx += uint16(count[l])
		code <<= 1
		if count[l] > 0 {
			t.max = uint(l)
		}
	}
	next := t.offs
	clear(t.prim[:])
	for s, l := range lens {
		t.perm[next[l]] = uint16(s)
		c := t.first[l] + uint32(next[l]-t.offs[l])
		next[l]++
		if l <= primBits {
			lo := c << (primBits - l)
			hi := (c + 1) << (primBits - l)
			e := uint16(s)<<5 | uint16(l)
			for i := lo; i < hi; i++ {
				t.prim[i] = e
			}
		}
	}
	return nil
}

// slow decodes a code longer than 10 bits (or any code near the end of
// the input): v holds n bits, the next at bit n-1.
func (t *huff) slow(v uint64, n uint) (sym int, l uint, ok bool) {
	for l = 1; l <= t.max; l++ {
		var c uint32
		if l <= n {
			c = uint32(v>>(n-l)) & (1<<l - 1)
		} else {
			c = uint32(v<<(l-n)) & (1<<l - 1)
		}
		if c < t.limit[l] && c >= t.first[l] {
			if l > n {
				return 0, l, false
			}
			return int(t.perm[uint32(t.offs[l])+c-t.first[l]]), l, true
		}
	}
	return 0, 0, false
}

// blockInfo is what decodeBlock found: the BWT block in tt[:n] (low 8
// bits: the byte; after invert, bits 8..31: the next index) and where its
// walk starts.
type blockInfo struct {
	n        int
	origPtr  int
	rand     bool
	storeCRC uint32
}

// decodeBlock reads one block after its magic and CRC: the header,
// symbol map, tables, selectors and the Huffman/MTF/RLE2 symbols, into
// tt (its length is the stream's block size). The caller then inverts
// it (invert) for the output walk.
func (d *decoder) decodeBlock(br *bitReader, tt []uint32, bi *blockInfo) error {
	v, err := br.bits(25, "block header")
	if err != nil {
		return err
	}
	bi.rand = v>>24 != 0
	bi.origPtr = int(v & (1<<24 - 1))

	// Symbol map: 16 bits saying which ranges of 16 are used, then 16
	// bits for each used range.
	used, err := br.bits(16, "symbol map")
	if err != nil {
		return err
	}
	nInUse := 0
	for i := range 16 {
		if used&(0x8000>>i) == 0 {
			continue
		}
		m, err := br.bits(16, "symbol map")
		if err != nil {
			return err
		}
		for j := range 16 {
			if m&(0x8000>>j) != 0 {
				d.unseq[nInUse] = byte(i*16 + j)
				nInUse++
			}
		}
	}
	if nInUse == 0 {
		return errs.Corrupt("bzip2: block uses no symbols")
	}
	alpha := nInUse + 2

	v, err = br.bits(18, "selectors")
	if err != nil {
		return err
	}
	nGroups := int(v >> 15)
	nSel := int(v & (1<<15 - 1))
	if nGroups < 2 || nGroups > maxGroups {
		return errs.Corrupt("bzip2: %d Huffman tables", nGroups)
	}
	if nSel == 0 {
		return errs.Corrupt("bzip2: no selectors")
	}
	// Selectors, MTF coded in unary. bzip2 1.0.8 reads but ignores
	// those beyond maxSelectors; so do we.
	var mtf [maxGroups]uint8
	for i := range mtf {
		mtf[i] = uint8(i)
	}
	for i := range nSel {
		j := 0
		for {
			if br.n == 0 {
				br.fill()
				if br.n == 0 {
					return br.short("selectors")
				}
			}
			br.n--
			if br.v>>br.n&1 == 0 {
				break
			}
			j++
			if j >= nGroups {
				return errs.Corrupt("bzip2: selector beyond %d tables", nGroups)
			}
		}
		s := mtf[j]
		copy(mtf[1:j+1], mtf[:j])
		mtf[0] = s
		if i < maxSelectors {
			d.sel[i] = s
		}
	}
	nSel = min(nSel, maxSelectors)

	// Code lengths, delta coded, for each table.
	for g := range nGroups {
		l, err := br.bits(5, "code lengths")
		if err != nil {
			return err
		}
		for s := range alpha {
			for {
				if l < 1 || l > maxCodeLen {
					return errs.Corrupt("bzip2: Huffman code length %d", l)
				}
				if br.n < 2 {
					br.fill()
				}
				if br.n == 0 {
					return br.short("code lengths")
				}
				br.n--
				if br.v>>br.n&1 == 0 {
					break
				}
				if br.n == 0 {
					return br.short("code lengths")
				}
				br.n--
				if br.v>>br.n&1 == 0 {
					l++
				} else {
					l--
				}
			}
			d.lens[s] = uint8(l)
		}
		if err := d.tabs[g].build(d.lens[:alpha]); err != nil {
			return err
		}
	}
	if err := d.symbols(br, tt, nInUse, nSel, bi); err != nil {
		return err
	}
	if bi.origPtr >= bi.n {
		return errs.Corrupt("bzip2: BWT origin %d in a block of %d bytes", bi.origPtr, bi.n)
	}
	return nil
}

// symbols decodes the Huffman-coded MTF/RLE2 symbols into tt.
func (d *decoder) symbols(br *bitReader, tt []uint32, nInUse, nSel int, bi *blockInfo) error {
	var mtf [256]byte
	copy(mtf[:], d.unseq[:nInUse])
	clear(d.counts[:])
	counts := &d.counts
	eob := nInUse + 1
	bs := len(tt)
	nblock := 0
	run, runW := 0, 1

	v, n := br.v, br.n
	buf, pos := br.buf, br.pos
	for group := 0; ; group++ {
		if group >= nSel {
			return errs.Corrupt("bzip2: more symbols than selectors")
		}
		t := &d.tabs[d.sel[group]]
		for left := groupSize; left > 0; left-- {
			if n < maxCodeLen {
				if pos+8 <= len(buf) {
					w := binary.BigEndian.Uint64(buf[pos:])
					k := (64 - n) >> 3
					v = v<<(k*8) | w>>(64-k*8)
					pos += int(k)
					n += k * 8
				} else {
					br.v, br.n, br.pos = v, n, pos
					br.fill()
					v, n, buf, pos = br.v, br.n, br.buf, br.pos
				}
			}
			var sym int
			if n >= primBits {
				e := t.prim[(v>>(n-primBits))&(1<<primBits-1)]
				if e != 0 {
					sym = int(e >> 5)
					n -= uint(e & 31)
					goto got
				}
			}
			{
				s, l, ok := t.slow(v, n)
				if !ok {
					br.v, br.n, br.pos = v, n, pos
					if l > n || n < t.max {
						return br.short("block data")
					}
					return errs.Corrupt("bzip2: invalid Huffman code")
				}
				sym = s
				n -= l
			}
		got:
			if sym <= 1 { // RUNA, RUNB
				run += runW << sym
				runW <<= 1
				if run > bs {
					return errs.Corrupt("bzip2: run of %d bytes beyond the block size %d", run, bs)
				}
				continue
			}
			if run > 0 {
				if nblock+run > bs {
					return errs.Corrupt("bzip2: block longer than its size %d", bs)
				}
				b := mtf[0]
				counts[b] += int32(run)
				fill := tt[nblock : nblock+run]
				for i := range fill {
					fill[i] = uint32(b)
				}
				nblock += run
				run, runW = 0, 1
			}
			if sym == eob {
				br.v, br.n, br.pos = v, n, pos
				bi.n = nblock
				return nil
			}
			if nblock >= bs {
				return errs.Corrupt("bzip2: block longer than its size %d", bs)
			}
			idx := sym - 1
			b := mtf[idx&255]
			if idx < 16 {
				for i := idx & 15; i > 0; i-- {
					mtf[i] = mtf[i-1]
				}
			} else {
				copy(mtf[1:idx+1], mtf[:idx])
			}
			mtf[0] = b
			tt[nblock] = uint32(b)
			counts[b]++
			nblock++
		}
	}
}

// invert links the BWT block: tt[i] keeps its byte in the low 8 bits and
// gets, in bits 8..31, the index of the entry that follows it.
func (d *decoder) invert(tt []uint32) {
	var cf [256]int32
	sum := int32(0)
	for i, c := range d.counts {
		cf[i] = sum
		sum += c
	}
	for i := range tt {
		b := byte(tt[i])
		tt[cf[b]] |= uint32(i) << 8
		cf[b]++
	}
}

// derandomise undoes the randomisation of a block's walked bytes.
func derandomise(out []byte, spans []span) {
	var wk walk
	for _, sp := range spans {
		q := out[sp.off : sp.off+sp.n]
		for i := range q {
			q[i] ^= wk.randMask()
		}
	}
}

// bytesOut undoes RLE1 over a block's walked bytes (spans of out in
// order), resumably.
type bytesOut struct {
	out   []byte
	spans []span // still to read after s
	s     []byte
	i     int
	last  byte
	cnt   int
	rep   int
}

func (o *bytesOut) reset(out []byte, spans []span) { *o = bytesOut{out: out, spans: spans} }

func (o *bytesOut) done() bool { return o.i == len(o.s) && len(o.spans) == 0 && o.rep == 0 }

// emit expands into buf.
func (o *bytesOut) emit(buf []byte) int {
	s := o.s
	i, last, cnt, rep := o.i, o.last, o.cnt, o.rep
	n := 0
	for n < len(buf) {
		if rep > 0 {
			k := min(rep, len(buf)-n)
			q := buf[n : n+k]
			for x := range q {
				q[x] = last
			}
			n += k
			rep -= k
			continue
		}
		if i >= len(s) {
			if len(o.spans) == 0 {
				break
			}
			sp := o.spans[0]
			o.spans = o.spans[1:]
			s, i = o.out[sp.off:sp.off+sp.n], 0
			continue
		}
		// Eight bytes without two equal neighbours (nor the first equal
		// to last) hold no run: they go out as they are.
		if cnt != 4 && i+8 <= len(s) && n+8 <= len(buf) {
			x := binary.LittleEndian.Uint64(s[i:])
			d := x ^ (x<<8 | uint64(last))
			if (d-0x0101010101010101)&^d&0x8080808080808080 == 0 {
				binary.LittleEndian.PutUint64(buf[n:], x)
				i += 8
				n += 8
				last, cnt = byte(x>>56), 1
				continue
			}
		}
		b := s[i]
		i++
		if cnt == 4 {
			rep, cnt = int(b), 0
			continue
		}
		if b != last {
			last, cnt = b, 1
		} else {
			cnt++
		}
		buf[n] = b
		n++
	}
	o.s, o.i, o.last, o.cnt, o.rep = s, i, last, cnt, rep
	return n
}
