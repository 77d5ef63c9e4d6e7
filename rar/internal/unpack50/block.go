package unpack50

import "github.com/go-unarc/unarc/rar/internal/rarbits"

// readBlockHeader reads a compressed block header (RAR 5.0 technote,
// "compressed block"): byte aligned; flags (bits 0-2: bits used in the
// last byte minus one, bits 3-4: size byte count minus one, bit 6: last
// block of the entry, bit 7: tables present), a check byte, 1-3 size bytes.
func (d *Decoder) readBlockHeader() error {
	br := &d.br
	br.alignByte()
	if err := br.check(); err != nil {
		return err
	}
	flags := br.get(8)
	sum := br.get(8)
	count := (flags>>3)&3 + 1
	if count == 4 {
		return d.br.corrupt("rar5: bad block size field")
	}
	var size uint32
	for i := uint32(0); i < count; i++ {
		size |= br.get(8) << (8 * i)
	}
	if byte(0x5a^flags^size^size>>8^size>>16) != byte(sum) {
		return d.br.corrupt("rar5: block header checksum mismatch")
	}
	if err := br.check(); err != nil {
		return err
	}
	start := br.bitPos() >> 3
	d.blockEnd = (start+int64(size)-1)*8 + int64(flags&7) + 1
	d.lastBlock = flags&0x40 != 0
	if flags&0x80 != 0 {
		if err := d.readTables(); err != nil {
			return err
		}
	}
	if !d.haveTables {
		return d.br.corrupt("rar5: block without Huffman tables")
	}
	return nil
}

// Quick-table widths (at least unrar's 9 and 6, see huffTable).
const (
	mainQuickBits = 10
	distQuickBits = 8
	lowQuickBits  = 7
)

// decodeSym reads one symbol of t.
func (b *bitReader) decodeSym(t *huffTable) uint {
	b.refill()
	if e := t.quick[b.bits>>(64-t.quickBits)]; e != 0 {
		b.skip(uint(e & 15))
		return uint(e >> 4)
	}
	s, l := t.slow(uint32(b.bits >> 48))
	b.skip(l)
	return uint(s)
}

// readTables reads the bit-length code (20 four-bit lengths, 15 followed
// by a zero-run count) and then the lengths of all four tables with it:
// 0-15 literal, 16/17 repeat the previous length 3+3 bits / 11+7 bits
// times, 18/19 the same runs of zeros.
func (d *Decoder) readTables() error {
	br := &d.br
	t := d.t
	if err := br.check(); err != nil {
		return err
	}
	var bl [bc]byte
	rarbits.ReadBitLengths(&bl, br.get)
	t.bd.build(bl[:], 8, 6)

	dcodes := dcb
	if d.extraDist {
		dcodes = dcx
	}
	size := nc + dcodes + ldc + rc
	lens := t.lens[:size]
	if err := rarbits.ReadLengths(lens, nil, rarbits.LengthRuns29[:], (*lengthSource)(d)); err != nil {
		return err
	}
	if err := br.check(); err != nil {
		return err
	}
	t.ld.build(lens[:nc], mainQuickBits, 9)
	t.dd.build(lens[nc:nc+dcodes], distQuickBits, 6)
	t.ldd.build(lens[nc+dcodes:nc+dcodes+ldc], lowQuickBits, 6)
	t.rd.build(lens[nc+dcodes+ldc:], 8, 6)
	d.haveTables = true
	return nil
}

// lengthSource gives rarbits.ReadLengths the bit reader and code-length
// code of a Decoder.
type lengthSource Decoder

func (d *lengthSource) Bits(k uint) uint32 { return d.br.get(k) }

func (d *lengthSource) LengthSym() (int, error) {
	if err := d.br.check(); err != nil {
		return 0, err
	}
	return int(d.br.decodeSym(&d.t.bd)), nil
}

func (d *lengthSource) Corrupt(what string) error { return d.br.corrupt("rar5: %s", what) }
