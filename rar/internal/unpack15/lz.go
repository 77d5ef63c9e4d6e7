package unpack15

import "github.com/go-unarc/unarc/internal/errs"

// Prefix-code families of RAR 1.5 (unrar unpack15.cpp): code lengths grow
// from a start length as the 16-bit input passes each threshold in dec;
// pos maps a length to its first value.
var (
	decL1  = [...]uint32{0x8000, 0xa000, 0xc000, 0xd000, 0xe000, 0xea00, 0xee00, 0xf000, 0xf200, 0xf200, 0xffff}
	posL1  = [13]uint32{0, 0, 0, 2, 3, 5, 7, 11, 16, 20, 24, 32, 32}
	decL2  = [...]uint32{0xa000, 0xc000, 0xd000, 0xe000, 0xea00, 0xee00, 0xf000, 0xf200, 0xf240, 0xffff}
	posL2  = [13]uint32{0, 0, 0, 0, 5, 7, 9, 13, 18, 22, 26, 34, 36}
	decHf0 = [...]uint32{0x8000, 0xc000, 0xe000, 0xf200, 0xf200, 0xf200, 0xf200, 0xf200, 0xffff}
	posHf0 = [13]uint32{0, 0, 0, 0, 0, 8, 16, 24, 33, 33, 33, 33, 33}
	decHf1 = [...]uint32{0x2000, 0xc000, 0xe000, 0xf000, 0xf200, 0xf200, 0xf7e0, 0xffff}
	posHf1 = [13]uint32{0, 0, 0, 0, 0, 0, 4, 44, 60, 76, 80, 80, 127}
	decHf2 = [...]uint32{0x1000, 0x2400, 0x8000, 0xc000, 0xfa00, 0xffff, 0xffff, 0xffff}
	posHf2 = [13]uint32{0, 0, 0, 0, 0, 0, 2, 7, 53, 117, 233, 0, 0}
	decHf3 = [...]uint32{0x800, 0x2400, 0xee00, 0xfe80, 0xffff, 0xffff, 0xffff}
	posHf3 = [13]uint32{0, 0, 0, 0, 0, 0, 0, 2, 16, 218, 251, 0, 0}
	decHf4 = [...]uint32{0xff00, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}
	posHf4 = [13]uint32{0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0}

	// ShortLZ length codes: entry i matches when the top shortLen bits of
	// the byte equal those of shortXor; entry 1 (table 1) and 3 (table 2)
	// are Buf60+3 bits long. The 16th entry catches everything.
	shortLen1 = [16]uint32{1, 3, 4, 4, 5, 6, 7, 8, 8, 4, 4, 5, 6, 6, 4, 0}
	shortXor1 = [16]uint32{0, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff, 0xc0, 0x80, 0x90, 0x98, 0x9c, 0xb0, 0}
	shortLen2 = [16]uint32{2, 3, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6, 4, 0}
	shortXor2 = [16]uint32{0, 0x40, 0x60, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xc0, 0x80, 0x90, 0x98, 0x9c, 0xb0, 0}
)

func (d *Decoder) get16() uint32 {
	if d.br.N < 16 {
		d.br.Fill()
	}
	return uint32(d.br.V >> 48)
}

// decodeNum decodes one value of a code family from the 16-bit window num.
func (d *Decoder) decodeNum(num, start uint32, dec []uint32, pos *[13]uint32) uint32 {
	num &= 0xfff0
	i := 0
	for dec[i] <= num {
		start++
		i++
	}
	d.br.Skip(uint(start))
	var prev uint32
	if i > 0 {
		prev = dec[i-1]
	}
	return (num-prev)>>(16-start) + pos[start]
}

// corrHuff re-ranks a move-to-front table when a counter overflows.
func corrHuff(cs *[256]uint16, ntp *[256]uint8) {
	k := 0
	for i := 7; i >= 0; i-- {
		for range 32 {
			cs[k] = cs[k]&^0xff | uint16(i)
			k++
		}
	}
	*ntp = [256]uint8{}
	for i := 6; i >= 0; i-- {
		ntp[i] = uint8((7 - i) * 32)
	}
}

// decode runs RAR 1.5's main loop (unrar Unpack15) until pos reaches
// limit: flag bits choose among literal, short and long matches, with the
// order of the latter two swapped by the running statistics.
func (d *Decoder) decode(limit int64) error {
	s := &d.s
	br := &d.br
	if d.first {
		d.first = false
		d.getFlags()
		s.flagsCnt = 8
	}
	for d.Pos < limit {
		last := d.Pos
		var err error
		// Deliberate copy: the flag-bit read (refill, test, shift) stands
		// twice. A flag() helper does not inline (cost 91 > 80), and a
		// two-step loop measured about 6% more CPU time than this form
		// in BenchmarkDecode (same-run A/B against main: 1.10 vs 1.04).
		if s.stMode {
			err = d.huffDecode()
		} else {
			if s.flagsCnt--; s.flagsCnt < 0 {
				d.getFlags()
				s.flagsCnt = 7
			}
			if s.flagBuf&0x80 != 0 {
				s.flagBuf <<= 1
				if s.nlzb > s.nhfb {
					err = d.longLZ()
				} else {
					err = d.huffDecode()
				}
			} else {
				s.flagBuf <<= 1
				if s.flagsCnt--; s.flagsCnt < 0 {
					d.getFlags()
					s.flagsCnt = 7
				}
				if s.flagBuf&0x80 != 0 {
					s.flagBuf <<= 1
					if s.nlzb > s.nhfb {
						err = d.huffDecode()
					} else {
						err = d.longLZ()
					}
				} else {
					s.flagBuf <<= 1
					err = d.shortLZ()
				}
			}
		}
		if br.Pad != 0 && br.Overrun() {
			d.Pos = last // decoded from padding: the input is short
			return br.InputErr()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *Decoder) putByte(c byte) {
	d.Win[d.Pos&d.Mask] = c
	d.Pos++
}

// copyString copies length bytes from dist back.
func (d *Decoder) copyString(dist, length uint32) error {
	if length == 0 {
		return nil
	}
	if dist == 0 || int64(dist) > d.Pos || int64(dist) > int64(len(d.Win)) {
		return errs.Corrupt("rar v15: distance %d at %d", dist, d.Pos-d.Start)
	}
	win, m := d.Win, int(d.Mask)
	dst, src := int(d.Pos&d.Mask), int((d.Pos-int64(dist))&d.Mask)
	for i := 0; i < int(length); i++ {
		win[(dst+i)&m] = win[(src+i)&m]
	}
	d.Pos += int64(length)
	return nil
}

func (d *Decoder) pushDist(dist, length uint32) {
	s := &d.s
	s.oldDist[s.oldDistPtr] = dist
	s.oldDistPtr = (s.oldDistPtr + 1) & 3
	s.lastLength, s.lastDist = length, dist
}

// getFlags reads the next flag byte through its move-to-front table.
func (d *Decoder) getFlags() {
	s := &d.s
	place := d.decodeNum(d.get16(), 5, decHf2[:], &posHf2)
	if place >= 256 {
		return // only corrupt data gets here; unrar keeps the old flags
	}
	for {
		flags := uint32(s.chSetC[place])
		s.flagBuf = flags >> 8
		np := s.nToPlC[flags&0xff]
		s.nToPlC[flags&0xff]++
		flags++
		if flags&0xff != 0 {
			s.chSetC[place] = s.chSetC[np]
			s.chSetC[np] = uint16(flags)
			return
		}
		corrHuff(&s.chSetC, &s.nToPlC)
	}
}

// huffDecode decodes a literal, or in "st mode" possibly a short match or
// the switch back to flag mode.
func (d *Decoder) huffDecode() error {
	s := &d.s
	bf := d.get16()
	var place uint32
	switch {
	case s.avrPlc > 0x75ff:
		place = d.decodeNum(bf, 8, decHf4[:], &posHf4)
	case s.avrPlc > 0x5dff:
		place = d.decodeNum(bf, 6, decHf3[:], &posHf3)
	case s.avrPlc > 0x35ff:
		place = d.decodeNum(bf, 5, decHf2[:], &posHf2)
	case s.avrPlc > 0x0dff:
		place = d.decodeNum(bf, 5, decHf1[:], &posHf1)
	default:
		place = d.decodeNum(bf, 4, decHf0[:], &posHf0)
	}
	place &= 0xff
	if s.stMode {
		if place == 0 && bf > 0xfff {
			place = 0x100
		}
		if place == 0 {
			bf = d.get16()
			d.br.Skip(1)
			if bf&0x8000 != 0 {
				s.numHuf = 0
				s.stMode = false
				return nil
			}
			length := uint32(3)
			if bf&0x4000 != 0 {
				length = 4
			}
			d.br.Skip(1)
			dist := d.decodeNum(d.get16(), 5, decHf2[:], &posHf2)
			dist = dist<<5 | d.get16()>>11
			d.br.Skip(5)
			return d.copyString(dist, length)
		}
		place--
	} else {
		if s.numHuf >= 16 && s.flagsCnt == 0 {
			s.stMode = true
		}
		s.numHuf++
	}
	s.avrPlc += place
	s.avrPlc -= s.avrPlc >> 8
	s.nhfb += 16
	if s.nhfb > 0xff {
		s.nhfb = 0x90
		s.nlzb >>= 1
	}
	d.putByte(byte(s.chSet[place] >> 8))
	for {
		cur := uint32(s.chSet[place])
		np := s.nToPl[cur&0xff]
		s.nToPl[cur&0xff]++
		cur++
		if cur&0xff > 0xa1 {
			corrHuff(&s.chSet, &s.nToPl)
			continue
		}
		s.chSet[place] = s.chSet[np]
		s.chSet[np] = uint16(cur)
		return nil
	}
}

// longLZ decodes a match with an adaptively coded length and distance.
func (d *Decoder) longLZ() error {
	s := &d.s
	s.numHuf = 0
	s.nlzb += 16
	if s.nlzb > 0xff {
		s.nlzb = 0x90
		s.nhfb >>= 1
	}
	oldAvr2 := s.avrLn2
	bf := d.get16()
	var length uint32
	switch {
	case s.avrLn2 >= 122:
		length = d.decodeNum(bf, 3, decL2[:], &posL2)
	case s.avrLn2 >= 64:
		length = d.decodeNum(bf, 2, decL1[:], &posL1)
	case bf < 0x100:
		length = bf
		d.br.Skip(16)
	default:
		for length = 0; (bf<<length)&0x8000 == 0; length++ {
		}
		d.br.Skip(uint(length) + 1)
	}
	s.avrLn2 += length
	s.avrLn2 -= s.avrLn2 >> 5
	bf = d.get16()
	var place uint32
	switch {
	case s.avrPlcB > 0x28ff:
		place = d.decodeNum(bf, 5, decHf2[:], &posHf2)
	case s.avrPlcB > 0x6ff:
		place = d.decodeNum(bf, 5, decHf1[:], &posHf1)
	default:
		place = d.decodeNum(bf, 4, decHf0[:], &posHf0)
	}
	s.avrPlcB += place
	s.avrPlcB -= s.avrPlcB >> 8
	var dist uint32
	var np uint8
	for {
		dist = uint32(s.chSetB[place&0xff])
		np = s.nToPlB[dist&0xff]
		s.nToPlB[dist&0xff]++
		dist++
		if dist&0xff != 0 {
			break
		}
		corrHuff(&s.chSetB, &s.nToPlB)
	}
	s.chSetB[place&0xff] = s.chSetB[np]
	s.chSetB[np] = uint16(dist)
	dist = (dist&0xff00 | d.get16()>>8) >> 1
	d.br.Skip(7)
	oldAvr3 := s.avrLn3
	if length != 1 && length != 4 {
		if length == 0 && dist <= s.maxDist3 {
			s.avrLn3++
			s.avrLn3 -= s.avrLn3 >> 8
		} else if s.avrLn3 > 0 {
			s.avrLn3--
		}
	}
	length += 3
	if dist >= s.maxDist3 {
		length++
	}
	if dist <= 256 {
		length += 8
	}
	if oldAvr3 > 0xb0 || s.avrPlc >= 0x2a00 && oldAvr2 < 0x40 {
		s.maxDist3 = 0x7f00
	} else {
		s.maxDist3 = 0x2001
	}
	d.pushDist(dist, length)
	return d.copyString(dist, length)
}

// shortLZ decodes a short match, a repeat of the last one, a match at an
// old distance, or the Buf60 toggle.
func (d *Decoder) shortLZ() error {
	s := &d.s
	s.numHuf = 0
	bf := d.get16()
	if s.lCount == 2 {
		d.br.Skip(1)
		if bf >= 0x8000 {
			return d.copyString(s.lastDist, s.lastLength)
		}
		bf <<= 1
		s.lCount = 0
	}
	bf = bf >> 8 & 0xff
	var length, n uint32
	if s.avrLn1 < 37 {
		for length = 0; ; length++ {
			n = shortLen1[length]
			if length == 1 {
				n = s.buf60 + 3
			}
			if (bf^shortXor1[length])&^(0xff>>n)&0xff == 0 {
				break
			}
		}
	} else {
		for length = 0; ; length++ {
			n = shortLen2[length]
			if length == 3 {
				n = s.buf60 + 3
			}
			if (bf^shortXor2[length])&^(0xff>>n)&0xff == 0 {
				break
			}
		}
	}
	d.br.Skip(uint(n))
	if length >= 9 {
		if length == 9 {
			s.lCount++
			return d.copyString(s.lastDist, s.lastLength)
		}
		if length == 14 {
			s.lCount = 0
			length = d.decodeNum(d.get16(), 3, decL2[:], &posL2) + 5
			dist := d.get16()>>1 | 0x8000
			d.br.Skip(15)
			s.lastLength, s.lastDist = length, dist
			return d.copyString(dist, length)
		}
		s.lCount = 0
		save := length
		dist := s.oldDist[(s.oldDistPtr-(length-9))&3]
		length = d.decodeNum(d.get16(), 2, decL1[:], &posL1) + 2
		if length == 0x101 && save == 10 {
			s.buf60 ^= 1
			return nil
		}
		if dist > 256 {
			length++
		}
		if dist >= s.maxDist3 {
			length++
		}
		d.pushDist(dist, length)
		return d.copyString(dist, length)
	}
	s.lCount = 0
	s.avrLn1 += length
	s.avrLn1 -= s.avrLn1 >> 4
	place := d.decodeNum(d.get16(), 5, decHf2[:], &posHf2) & 0xff
	dist := uint32(s.chSetA[place])
	if place > 0 {
		s.chSetA[place] = s.chSetA[place-1]
		s.chSetA[place-1] = uint16(dist)
	}
	length += 2
	dist++
	d.pushDist(dist, length)
	return d.copyString(dist, length)
}
