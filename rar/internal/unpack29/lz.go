package unpack29

import (
	"errors"

	"github.com/go-unarc/unarc/rar/internal/rarbits"

	"github.com/go-unarc/unarc/internal/errs"
)

// Table sizes of RAR 2.9 LZ blocks (unrar: NC30, DC30, LDC30, RC30, BC30).
const (
	mainSyms    = 299 // 256 literals, 8 control codes, 28 length slots
	distSyms    = 60
	lowDistSyms = 17
	repSyms     = 28
	tableSize   = mainSyms + distSyms + lowDistSyms + repSyms
	bitLenSyms  = 20
	lowDistRep  = 16 // LOW_DIST_REP_COUNT
)

var (
	distBase [distSyms]uint32
	distBits [distSyms]uint8
)

func init() {
	// Slots per number of extra bits, 0..18 (unrar's DBitLengthCounts);
	// they cover distances up to 4 MiB.
	counts := [...]int{4, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 14, 0, 12}
	var base uint32
	slot := 0
	for bits, c := range counts {
		for range c {
			distBase[slot] = base
			distBits[slot] = uint8(bits)
			base += 1 << bits
			slot++
		}
	}
}

// errOverrun is internal: the decoder consumed bits past the input's end.
var errOverrun = errors.New("unpack29: input overrun")

// lzState is what an LZ block carries between symbols and, in solid
// streams, between entries.
type lzState struct {
	tablesRead bool
	oldDist    [4]uint32
	lastLength uint32
	lowDist    uint32
	lowDistRep uint32
	oldTable   [tableSize]byte
	main       huffman
	dist       huffman
	low        huffman
	rep        huffman
	bitLen     huffman
}

func (s *lzState) reset() {
	s.tablesRead = false
	s.oldDist = [4]uint32{}
	s.lastLength = 0
	s.lowDist, s.lowDistRep = 0, 0
	clear(s.oldTable[:])
}

// decodeLZ decodes LZ symbols until pos reaches limit, the block or the
// entry ends, or the input runs out.
func (d *Decoder) decodeLZ(limit int64) error {
	s := &d.lz
	br := &d.br
	win := d.Win
	mask := d.Mask
	pos := d.Pos
	last := pos
	for pos < limit {
		if br.N < 40 {
			br.Fill()
		}
		if br.Pad != 0 && br.Overrun() {
			// The previous symbol was decoded from padding: drop it.
			d.Pos = last
			return errOverrun
		}
		last = pos
		if br.Pad == 0 {
			// Runs of literals with the bit state in registers. Without
			// padding loaded every bit is real input, so no overrun check
			// is needed; each code is at most 15 bits.
			bv, bn := br.V, br.N
			for bn >= rarbits.MaxCodeLen && pos < limit {
				e := s.main.Quick[bv>>(64-rarbits.QuickBits)]
				if e == 0 || e>>4 >= 256 {
					break
				}
				bv <<= e & 15
				bn -= uint(e & 15)
				win[pos&mask] = byte(e >> 4)
				pos++
			}
			br.V, br.N = bv, bn
			if pos >= limit {
				break
			}
			if bn < 40 {
				br.Fill()
			}
			last = pos
		}
		// Deliberate copy of Huffman.Decode (see unpack20's main loop,
		// where the call measured 10% slower): the compiler does not
		// inline Decode.
		v := uint32(br.V >> 48)
		var sym int
		if e := s.main.Quick[v>>(16-rarbits.QuickBits)]; e != 0 {
			br.V <<= e & 15
			br.N -= uint(e & 15)
			sym = int(e >> 4)
		} else {
			sym = s.main.DecodeSlow(br, v)
		}
		if uint(sym) < 256 {
			win[pos&mask] = byte(sym)
			pos++
			continue
		}
		var length, dist uint32
		switch {
		case sym >= 271:
			sym -= 271
			length = br.Slot(rarbits.LenBase[sym], rarbits.LenBits[sym]) + 3
			ds := s.dist.Decode(br)
			if ds < 0 {
				d.Pos = pos
				return errs.Corrupt("rar v29: bad distance code")
			}
			if br.N < 32 {
				br.Fill()
			}
			dist = distBase[ds] + 1
			if b := uint(distBits[ds]); b > 0 {
				if ds > 9 {
					if b > 4 {
						dist += uint32(br.V>>(64-(b-4))) << 4
						br.Skip(b - 4)
					}
					if s.lowDistRep > 0 {
						s.lowDistRep--
						dist += s.lowDist
					} else {
						ld := s.low.Decode(br)
						switch {
						case ld == 16:
							s.lowDistRep = lowDistRep - 1
							dist += s.lowDist
						case ld >= 0:
							dist += uint32(ld)
							s.lowDist = uint32(ld)
						default:
							d.Pos = pos
							return errs.Corrupt("rar v29: bad low distance code")
						}
					}
				} else {
					dist += uint32(br.V >> (64 - b))
					br.Skip(b)
				}
			}
			if dist >= 0x2000 {
				length++
				if dist >= 0x40000 {
					length++
				}
			}
			s.oldDist[3], s.oldDist[2], s.oldDist[1], s.oldDist[0] = s.oldDist[2], s.oldDist[1], s.oldDist[0], dist
			s.lastLength = length
		case sym == 256:
			d.Pos = pos
			if err := d.endOfBlock(); err != nil || d.Done || d.ppm.active {
				return err
			}
			continue
		case sym == 257:
			d.Pos = pos
			if err := d.readVMCodeLZ(); err != nil {
				return err
			}
			continue
		case sym == 258:
			if s.lastLength == 0 {
				continue
			}
			length, dist = s.lastLength, s.oldDist[0]
		case sym >= 263:
			sym -= 263
			dist = br.Slot(rarbits.ShortBase[sym], rarbits.ShortBits[sym]) + 1
			s.oldDist[3], s.oldDist[2], s.oldDist[1], s.oldDist[0] = s.oldDist[2], s.oldDist[1], s.oldDist[0], dist
			length = 2
			s.lastLength = 2
		case sym >= 259:
			i := sym - 259
			dist = s.oldDist[i]
			for ; i > 0; i-- {
				s.oldDist[i] = s.oldDist[i-1]
			}
			s.oldDist[0] = dist
			ls := s.rep.Decode(br)
			if ls < 0 {
				d.Pos = pos
				return errs.Corrupt("rar v29: bad length code")
			}
			length = br.Slot(rarbits.LenBase[ls], rarbits.LenBits[ls]) + 2
			s.lastLength = length
		default:
			d.Pos = pos
			return errs.Corrupt("rar v29: bad main code")
		}
		if int64(dist) > pos || int64(dist) > int64(len(win)) {
			d.Pos = pos
			return errs.Corrupt("rar v29: distance %d before the start of the data", dist)
		}
		rarbits.CopyMatch(win, mask, pos, int(length), int(dist))
		pos += int64(length)
	}
	if br.Pad != 0 && br.Overrun() {
		d.Pos = last // the last symbol came from padding
		return errOverrun
	}
	d.Pos = pos
	return nil
}

// copyOut is copyMatch with the checks, for the PPMd block's LZ escapes.
func (d *Decoder) copyOut(length, dist int) error {
	if int64(dist) > d.Pos || dist > len(d.Win) {
		return errs.Corrupt("rar v29: distance %d before the start of the data", dist)
	}
	rarbits.CopyMatch(d.Win, d.Mask, d.Pos, length, dist)
	d.Pos += int64(length)
	return nil
}

// endOfBlock reads the flags after code 256 (unrar ReadEndOfBlock):
// "1" new tables follow; "00" end of file; "01" end of file, new tables at
// the start of the next (solid) file.
func (d *Decoder) endOfBlock() error {
	br := &d.br
	if br.N < 16 {
		br.Fill()
	}
	if br.V>>63 != 0 {
		br.Skip(1)
		return d.readTables()
	}
	newTable := br.V>>62&1 != 0
	br.Skip(2)
	if br.Overrun() {
		return errOverrun
	}
	d.lz.tablesRead = !newTable
	d.Done = true
	return nil
}

// readTables reads a block header at the next byte boundary: a PPMd
// block's parameters, or an LZ block's Huffman code lengths, coded with a
// 20-symbol pre-code and run lengths, as deltas to the previous table
// unless the "keep old table" bit is clear (unrar ReadTables30).
func (d *Decoder) readTables() error {
	s := &d.lz
	br := &d.br
	br.Align()
	br.Fill()
	if br.Overrun() {
		return errOverrun
	}
	if br.V>>63 != 0 {
		return d.startPPM()
	}
	d.ppm.active = false
	s.lowDist, s.lowDistRep = 0, 0
	if br.V>>62&1 == 0 {
		clear(s.oldTable[:])
	}
	br.Skip(2)
	var bl [bitLenSyms]byte
	rarbits.ReadBitLengths(&bl, br.Bits)
	if err := s.bitLen.Build(bl[:]); err != nil {
		return err
	}
	var t [tableSize]byte
	if err := rarbits.ReadLengths(t[:], s.oldTable[:], rarbits.LengthRuns29[:], (*lengthSource)(d)); err != nil {
		return err
	}
	if br.Overrun() {
		return errOverrun
	}
	if err := s.main.Build(t[:mainSyms]); err != nil {
		return err
	}
	if err := s.dist.Build(t[mainSyms : mainSyms+distSyms]); err != nil {
		return err
	}
	if err := s.low.Build(t[mainSyms+distSyms : mainSyms+distSyms+lowDistSyms]); err != nil {
		return err
	}
	if err := s.rep.Build(t[mainSyms+distSyms+lowDistSyms:]); err != nil {
		return err
	}
	s.oldTable = t
	s.tablesRead = true
	return nil
}

// readVMCodeLZ reads a filter definition from an LZ block (unrar
// ReadVMCode): a flags byte, a length, then that many bytes.
func (d *Decoder) readVMCodeLZ() error {
	br := &d.br
	if br.N < 32 {
		br.Fill()
	}
	first := byte(br.Bits(8))
	n := int(first&7) + 1
	switch n {
	case 7:
		n = int(br.Bits(8)) + 7
	case 8:
		n = int(br.Bits(16))
	}
	if n == 0 {
		return errs.Corrupt("rar v29: empty filter code")
	}
	code := d.flt.codeBuf(n)
	for i := range code {
		if br.N < 8 {
			br.Fill()
		}
		code[i] = byte(br.Bits(8))
	}
	if br.Overrun() {
		return errOverrun
	}
	return d.addFilter(first, code)
}

// lengthSource gives rarbits.ReadLengths the bit reader and code-length
// code of a Decoder.
type lengthSource Decoder

func (d *lengthSource) Bits(k uint) uint32 { return d.br.Bits(k) }

func (d *lengthSource) LengthSym() (int, error) {
	return d.lz.bitLen.DecodeLength(&d.br, errOverrun, "rar v29")
}

func (d *lengthSource) Corrupt(what string) error { return errs.Corrupt("rar v29: %s", what) }
