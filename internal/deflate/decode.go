package deflate

import "encoding/binary"

// Huffman block data, RFC 1951 section 3.2.5.

// huffman decodes the current Huffman block until it ends, the window is
// full or an error occurs. The fast loop runs while fastIn input bytes are
// at hand; the slow path decodes single symbols reading byte by byte, which
// keeps exact sources exact and detects truncation precisely.
func (z *Reader) huffman() {
	if z.copyLen > 0 {
		z.pending()
	}
	for z.err == nil && z.state == stHuff && z.op < z.full {
		if len(z.in)-z.ip < fastIn && z.pk != nil && !z.eof {
			z.more()
		}
		if len(z.in)-z.ip >= fastIn {
			z.fast()
		} else {
			z.slow()
		}
	}
}

// pending copies as much of a match as fits in the window; only Deflate64
// matches (up to 65538 bytes) can be left unfinished.
func (z *Reader) pending() {
	n := min(z.copyLen, len(z.out)-z.op)
	z.op = forwardCopy(z.out, z.op, z.copyDist, n)
	z.copyLen -= n
}

// forwardCopy copies n bytes from dist back to out[op:], byte by byte in
// effect (an overlapping match repeats its pattern), and returns op+n.
// Each copy doubles the repeated run, so short distances take few calls.
func forwardCopy(out []byte, op, dist, n int) int {
	end := op + n
	src := op - dist
	for op < end {
		op += copy(out[op:end], out[src:op])
	}
	return end
}

// slow decodes one symbol (and a match's distance) from the bit buffer,
// reading input bytes only as needed.
func (z *Reader) slow() {
	e, ok := z.sym(z.lit[:], litBits)
	if !ok {
		return
	}
	switch {
	case e&eLit != 0:
		z.out[z.op] = byte(e >> 16)
		z.op++
		return
	case e&eEOB != 0:
		z.state = stHeader
		return
	case e&eBad != 0:
		z.corrupt("invalid literal/length symbol")
		return
	}
	x := uint(e >> eExtraShft & 31)
	if !z.need(x) {
		return
	}
	length := int(e>>16) + int(z.take(x))
	d, ok := z.sym(z.dist[:], distBits)
	if !ok {
		return
	}
	if d&eBad != 0 {
		z.corrupt("invalid distance symbol")
		return
	}
	x = uint(d >> eExtraShft & 31)
	if !z.need(x) {
		return
	}
	dist := int(d>>16) + int(z.take(x))
	if dist > z.op {
		z.corrupt("distance too far back")
		return
	}
	z.copyLen, z.copyDist = length, dist
	z.pending()
}

// fast is the hot loop. The bit buffer and positions live in locals; each
// step refills the bit buffer with one unaligned 8-byte load (at least 56
// valid bits), enough for three literal codes (15 bits each), or two
// codes and a length's extra bits (16 in Deflate64); a second load
// precedes the distance (15+14 bits). A step starts below full and writes
// at most 2 literals plus a match rounded up to whole words, which the
// margin behind full holds, so matches copy eight bytes at a time.
func (z *Reader) fast() {
	var (
		out  = z.out
		op   = z.op
		full = z.full
		in   = z.in
		ip   = z.ip
		bits = z.bits
		nb   = z.nb
		lit  = z.lit
		dist = z.dist
	)
	for op < full && ip <= len(in)-fastIn {
		bits |= binary.LittleEndian.Uint64(in[ip:]) << (nb & 63)
		ip += int((63 - nb) >> 3)
		nb |= 56

		// Deliberate copies: the literal decode below stands three times,
		// unrolled by hand so that up to three literals share one refill
		// with bits and nb kept in locals; this is the inner loop of every
		// Deflate entry (not re-measured in this change).
		e := lit[bits&(1<<litBits-1)]
		if e&eSub != 0 {
			e = lit[(e>>16+uint32(bits>>litBits)&(1<<(e>>eExtraShft&31)-1))&(litSize-1)]
		}
		if e&eLit != 0 {
			n := uint(e & eLenMask)
			bits >>= n
			nb -= n
			out[op] = byte(e >> 16)
			op++
			// A second symbol without refilling: at least 41 bits remain.
			e = lit[bits&(1<<litBits-1)]
			if e&eSub != 0 {
				e = lit[(e>>16+uint32(bits>>litBits)&(1<<(e>>eExtraShft&31)-1))&(litSize-1)]
			}
			if e&eLit != 0 {
				n := uint(e & eLenMask)
				bits >>= n
				nb -= n
				out[op] = byte(e >> 16)
				op++
				// A third literal (at least 26 bits remain); anything
				// else is decoded again after the next refill.
				e = lit[bits&(1<<litBits-1)]
				if e&eSub != 0 {
					e = lit[(e>>16+uint32(bits>>litBits)&(1<<(e>>eExtraShft&31)-1))&(litSize-1)]
				}
				if e&eLit != 0 {
					n := uint(e & eLenMask)
					bits >>= n
					nb -= n
					out[op] = byte(e >> 16)
					op++
				}
				continue
			}
		}
		n := uint(e & eLenMask)
		bits >>= n
		nb -= n
		if e&(eEOB|eBad) != 0 {
			if e&eEOB != 0 {
				z.state = stHeader
			} else {
				z.corrupt("invalid literal/length symbol")
			}
			break
		}
		// Length: at least 26 bits remain, enough for 16 extra bits.
		x := uint(e >> eExtraShft & 31)
		length := int(e>>16) + int(bits&(1<<x-1))
		bits >>= x
		nb -= x

		bits |= binary.LittleEndian.Uint64(in[ip:]) << (nb & 63)
		ip += int((63 - nb) >> 3)
		nb |= 56
		d := dist[bits&(1<<distBits-1)]
		if d&eSub != 0 {
			d = dist[(d>>16+uint32(bits>>distBits)&(1<<(d>>eExtraShft&31)-1))&(distSize-1)]
		}
		n = uint(d & eLenMask)
		bits >>= n
		nb -= n
		if d&eBad != 0 {
			z.corrupt("invalid distance symbol")
			break
		}
		x = uint(d >> eExtraShft & 31)
		dd := int(d>>16) + int(bits&(1<<x-1))
		bits >>= x
		nb -= x
		if dd > op {
			z.corrupt("distance too far back")
			break
		}
		if length > maxMatch { // Deflate64 only
			z.op, z.copyLen, z.copyDist = op, length, dd
			z.pending()
			op = z.op
			if z.copyLen > 0 {
				break
			}
			continue
		}

		s := op - dd
		switch {
		case dd >= 8:
			// Each 8-byte load reads only bytes written before it. Most
			// matches are short: copy 16 bytes before looping.
			binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(out[s:]))
			binary.LittleEndian.PutUint64(out[op+8:], binary.LittleEndian.Uint64(out[s+8:]))
			if length > 16 {
				// The slices are rounded up to whole words (the margin has
				// room); the loop conditions double as bounds checks.
				dst := out[op+16 : op+(length+7)&^7]
				src := out[s+16 : s+16+len(dst)]
				for len(dst) >= 8 && len(src) >= 8 {
					binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
					dst, src = dst[8:], src[8:]
				}
			}
		case dd == 1:
			v := uint64(out[s]) * 0x0101010101010101
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(out[op+i:], v)
			}
		default:
			for i := range length {
				out[op+i] = out[s+i]
			}
		}
		op += length
	}
	z.op, z.ip, z.bits, z.nb = op, ip, bits, nb
}
