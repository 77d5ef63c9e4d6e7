package bcj

import "encoding/binary"

// Each converter decodes b in place (or, with enc, encodes it: the
// forward direction the 7z writer uses, 7-Zip's encoding = 1), b[0] being
// at stream position ip, and returns how many leading bytes are final. The rest (a possibly split
// instruction) is presented again with more data, or passes through
// unconverted at the end of the stream. The transforms follow 7-Zip's
// Bra.c / Bra86.c / BraIA64.c (LZMA SDK) and, for RISC-V, the filter
// xz-utils and 7-Zip share.

// x86 undoes the BCJ x86 filter: E8 (call) and E9 (jmp) rel32 operands
// whose top byte is 00 or FF were made absolute. state carries the
// "previous mask" of recently seen E8/E9 bytes across calls.
func x86(b []byte, ip uint32, state *uint32, enc bool) int {
	if len(b) < 5 {
		return 0
	}
	size := len(b) - 4
	ip += 5
	mask := *state & 7
	pos := 0
	for {
		p := pos
		for p < size && b[p]&0xFE != 0xE8 {
			p++
		}
		d := p - pos
		pos = p
		if p >= size {
			if d > 2 {
				*state = 0
			} else {
				*state = mask >> uint(d)
			}
			return pos
		}
		if d > 2 {
			mask = 0
		} else {
			mask >>= uint(d)
			if mask != 0 && (mask > 4 || mask == 3 || test86(b[p+int(mask>>1)+1])) {
				mask = (mask >> 1) | 4
				pos++
				continue
			}
		}
		if test86(b[p+4]) {
			v := binary.LittleEndian.Uint32(b[p+1:])
			cur := ip + uint32(pos)
			pos += 5
			v = rel(v, cur, enc)
			if mask != 0 {
				sh := (mask & 6) << 2
				if test86(byte(v >> sh)) {
					v ^= (uint32(0x100) << sh) - 1
					v = rel(v, cur, enc)
				}
				mask = 0
			}
			b[p+1] = byte(v)
			b[p+2] = byte(v >> 8)
			b[p+3] = byte(v >> 16)
			b[p+4] = byte(0 - ((v >> 24) & 1))
		} else {
			mask = (mask >> 1) | 4
			pos++
		}
	}
}

// rel makes the address v absolute from position pc (enc) or relative to
// it again (decoding).
func rel(v, pc uint32, enc bool) uint32 {
	if enc {
		return v + pc
	}
	return v - pc
}

// test86 reports whether b is 0x00 or 0xFF, the top byte of a plausible
// near displacement.
func test86(b byte) bool { return (b+1)&0xFE == 0 }

// arm undoes the ARM (little-endian) BL filter.
func arm(b []byte, ip uint32, enc bool) int {
	if len(b) < 4 {
		return 0
	}
	ip += 8
	i := 0
	for ; i <= len(b)-4; i += 4 {
		if b[i+3] != 0xEB {
			continue
		}
		src := uint32(b[i+2])<<16 | uint32(b[i+1])<<8 | uint32(b[i])
		src <<= 2
		dest := rel(src, ip+uint32(i), enc) >> 2
		b[i+2] = byte(dest >> 16)
		b[i+1] = byte(dest >> 8)
		b[i] = byte(dest)
	}
	return i
}

// armt undoes the ARM Thumb BL filter (two 16-bit halves).
func armt(b []byte, ip uint32, enc bool) int {
	if len(b) < 4 {
		return 0
	}
	ip += 4
	i := 0
	for ; i <= len(b)-4; i += 2 {
		if b[i+1]&0xF8 != 0xF0 || b[i+3]&0xF8 != 0xF8 {
			continue
		}
		src := (uint32(b[i+1])&7)<<19 | uint32(b[i])<<11 | (uint32(b[i+3])&7)<<8 | uint32(b[i+2])
		src <<= 1
		dest := rel(src, ip+uint32(i), enc) >> 1
		b[i+1] = byte(0xF0 | (dest>>19)&7)
		b[i] = byte(dest >> 11)
		b[i+3] = byte(0xF8 | (dest>>8)&7)
		b[i+2] = byte(dest)
		i += 2
	}
	return i
}

// arm64 undoes the ARM64 filter (7-Zip 23): BL immediates and ADRP
// page offsets within +-512 MiB.
func arm64(b []byte, ip uint32, enc bool) int {
	const flag = uint32(1) << (24 - 4)
	const mask = (uint32(1) << 24) - (flag << 1)
	n := len(b) &^ 3
	for i := 0; i < n; i += 4 {
		v := binary.LittleEndian.Uint32(b[i:])
		pc := ip + uint32(i)
		if (v-0x94000000)&0xFC000000 == 0 { // BL
			v = rel(v, pc>>2, enc)
			v &= 0x03FFFFFF
			v |= 0x94000000
			binary.LittleEndian.PutUint32(b[i:], v)
			continue
		}
		v -= 0x90000000
		if v&0x9F000000 != 0 { // not ADRP
			continue
		}
		v += flag
		if v&mask != 0 {
			continue
		}
		z := (v & 0xFFFFFFE0) | (v >> 26)
		z = rel(z, (pc>>(12-3))&^7, enc)
		v &= 0x1F
		v |= 0x90000000
		v |= z << 26
		v |= 0x00FFFFE0 & ((z & ((flag << 1) - 1)) - flag)
		binary.LittleEndian.PutUint32(b[i:], v)
	}
	return n
}

// ppc undoes the PowerPC (big-endian) "bl" filter.
func ppc(b []byte, ip uint32, enc bool) int {
	if len(b) < 4 {
		return 0
	}
	i := 0
	for ; i <= len(b)-4; i += 4 {
		if b[i]>>2 != 0x12 || b[i+3]&3 != 1 {
			continue
		}
		src := (uint32(b[i])&3)<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])&^3
		dest := rel(src, ip+uint32(i), enc)
		b[i] = byte(0x48 | (dest>>24)&3)
		b[i+1] = byte(dest >> 16)
		b[i+2] = byte(dest >> 8)
		b[i+3] = b[i+3]&3 | byte(dest)&^3
	}
	return i
}

// sparc undoes the SPARC "call" filter.
func sparc(b []byte, ip uint32, enc bool) int {
	if len(b) < 4 {
		return 0
	}
	i := 0
	for ; i <= len(b)-4; i += 4 {
		if !(b[i] == 0x40 && b[i+1]&0xC0 == 0) && !(b[i] == 0x7F && b[i+1]&0xC0 == 0xC0) {
			continue
		}
		src := binary.BigEndian.Uint32(b[i:]) << 2
		dest := rel(src, ip+uint32(i), enc) >> 2
		dest = ((0-((dest>>22)&1))<<22)&0x3FFFFFFF | dest&0x3FFFFF | 0x40000000
		binary.BigEndian.PutUint32(b[i:], dest)
	}
	return i
}

// ia64Branch says, per bundle template, which of the three slots may hold
// a branch (bit per slot).
var ia64Branch = [32]byte{
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	4, 4, 6, 6, 0, 0, 7, 7,
	4, 4, 0, 0, 4, 4, 0, 0,
}

// ia64 undoes the IA-64 filter over 16-byte bundles.
func ia64(b []byte, ip uint32) int {
	if len(b) < 16 {
		return 0
	}
	i := 0
	for ; i <= len(b)-16; i += 16 {
		m := uint32(ia64Branch[b[i]&0x1F])
		bitPos := uint32(5)
		for slot := 0; slot < 3; slot, bitPos = slot+1, bitPos+41 {
			if (m>>uint(slot))&1 == 0 {
				continue
			}
			bytePos := int(bitPos >> 3)
			bitRes := bitPos & 7
			var inst uint64
			for j := 0; j < 6; j++ {
				inst |= uint64(b[i+j+bytePos]) << (8 * j)
			}
			norm := inst >> bitRes
			if (norm>>37)&0xF != 0x5 || (norm>>9)&7 != 0 {
				continue
			}
			src := uint32((norm >> 13) & 0xFFFFF)
			src |= (uint32(norm>>36) & 1) << 20
			src <<= 4
			dest := (src - (ip + uint32(i))) >> 4
			norm &^= uint64(0x8FFFFF) << 13
			norm |= uint64(dest&0xFFFFF) << 13
			norm |= uint64(dest&0x100000) << (36 - 20)
			inst &= (1 << bitRes) - 1
			inst |= norm << bitRes
			for j := 0; j < 6; j++ {
				b[i+j+bytePos] = byte(inst >> (8 * j))
			}
		}
	}
	return i
}

// riscv undoes the RISC-V filter: JAL with rd=ra/t0 and AUIPC+inst2
// pairs (stored by the encoder as a marker AUIPC with rd=x2 followed by
// the big-endian absolute address).
func riscv(b []byte, ip uint32) int {
	if len(b) < 8 {
		return 0
	}
	last := len(b) - 8
	i := 0
	for ; i <= last; i += 2 {
		inst := uint32(b[i])
		if inst == 0xEF { // JAL
			b1 := uint32(b[i+1])
			if b1&0x0D != 0 {
				continue
			}
			b2, b3 := uint32(b[i+2]), uint32(b[i+3])
			addr := (b1&0xF0)<<13 | b2<<9 | b3<<1
			addr -= ip + uint32(i)
			b[i+1] = byte(b1&0x0F | (addr>>8)&0xF0)
			b[i+2] = byte((addr>>16)&0x0F | (addr>>7)&0x10 | (addr<<4)&0xE0)
			b[i+3] = byte((addr>>4)&0x7F | (addr>>13)&0x80)
			i += 2
			continue
		}
		if inst&0x7F != 0x17 { // not AUIPC
			continue
		}
		inst = binary.LittleEndian.Uint32(b[i:])
		var inst2 uint32
		if inst&0xE80 != 0 {
			// rd is neither x0 nor x2: a pair the encoder stored in the
			// "fake" (unconverted, swapped) form.
			inst2 = binary.LittleEndian.Uint32(b[i+4:])
			if ((inst<<8)^(inst2-3))&0xF8003 != 0 {
				i += 4
				continue
			}
			addr := inst&0xFFFFF000 + inst2>>20
			inst = 0x17 | 2<<7 | inst2<<12
			inst2 = addr
		} else {
			rs1 := inst >> 27
			if (inst-0x3117)<<18 >= rs1&0x1D {
				i += 2
				continue
			}
			addr := binary.BigEndian.Uint32(b[i+4:])
			addr -= ip + uint32(i)
			inst2 = inst>>12 | addr<<20
			inst = 0x17 | rs1<<7 | (addr+0x800)&0xFFFFF000
		}
		binary.LittleEndian.PutUint32(b[i:], inst)
		binary.LittleEndian.PutUint32(b[i+4:], inst2)
		i += 6
	}
	return i
}

// swap reverses the byte order of each whole group of g (2 or 4) bytes
// of b and returns how many bytes it converted; the partial group left
// waits for more input, and at the end of the stream passes unchanged,
// as 7-Zip's Swap2 and Swap4 leave it.
func swap(b []byte, g int) int {
	n := len(b) - len(b)%g
	if g == 2 {
		for i := 0; i < n; i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
		return n
	}
	for i := 0; i < n; i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return n
}
