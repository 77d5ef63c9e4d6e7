package unpack50

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
	for i := 0; i < bc; {
		l := br.get(4)
		if l != 15 {
			bl[i] = byte(l)
			i++
			continue
		}
		z := br.get(4)
		if z == 0 {
			bl[i] = 15
			i++
			continue
		}
		for z += 2; z > 0 && i < bc; z-- {
			bl[i] = 0
			i++
		}
	}
	t.bd.build(bl[:], 8, 6)

	dcodes := dcb
	if d.extraDist {
		dcodes = dcx
	}
	size := nc + dcodes + ldc + rc
	lens := t.lens[:size]
	for i := 0; i < size; {
		if err := br.check(); err != nil {
			return err
		}
		n := br.decodeSym(&t.bd)
		switch {
		case n < 16:
			lens[i] = byte(n)
			i++
		case n < 18:
			var k uint32
			if n == 16 {
				k = br.get(3) + 3
			} else {
				k = br.get(7) + 11
			}
			if i == 0 {
				return d.br.corrupt("rar5: length repeat at table start")
			}
			for ; k > 0 && i < size; k-- {
				lens[i] = lens[i-1]
				i++
			}
		default:
			var k uint32
			if n == 18 {
				k = br.get(3) + 3
			} else {
				k = br.get(7) + 11
			}
			for ; k > 0 && i < size; k-- {
				lens[i] = 0
				i++
			}
		}
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
