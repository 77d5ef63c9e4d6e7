package deflate

import "io"

// Block headers and stored blocks, RFC 1951 sections 3.2.3 to 3.2.7.

// header reads the next block header (or ends the stream after the final
// block) and prepares the block's tables.
func (z *Reader) header() {
	if z.final {
		z.finish()
		return
	}
	if !z.need(3) {
		return
	}
	z.final = z.take(1) == 1
	switch z.take(2) {
	case 0:
		z.storedHeader()
	case 1:
		z.lit, z.dist = &fixedLit, &fixedDist
		if z.d64 {
			z.lit, z.dist = &fixedLit64, &fixedDist64
		}
		z.state = stHuff
	case 2:
		z.dynamicHeader()
	default:
		z.corrupt("reserved block type 3")
	}
}

// storedHeader skips to the byte boundary and reads LEN and NLEN.
func (z *Reader) storedHeader() {
	z.take(z.nb & 7)
	if !z.need(32) {
		return
	}
	n := z.take(16)
	if z.take(16) != ^n&0xFFFF {
		z.corrupt("stored block length check")
		return
	}
	if z.pk != nil {
		// Give the whole bytes in the bit buffer back, so the data is
		// copied straight from the input.
		z.ip -= int(z.nb >> 3)
		z.bits, z.nb = 0, 0
	}
	z.stored = int(n)
	z.state = stStored
	if n == 0 {
		z.state = stHeader
	}
}

// storedData copies stored bytes into the window, up to its end.
func (z *Reader) storedData() {
	for z.stored > 0 && z.op < len(z.out) {
		dst := z.out[z.op:min(len(z.out), z.op+z.stored)]
		var n int
		switch {
		case z.pk != nil && z.own != nil && z.ip >= len(z.in) && len(dst) >= 4096 && z.own.Buffered() == z.ip:
			// Our own buffer is used up: read the stored bytes straight
			// into the window instead of through it (never past the block).
			z.own.Discard(z.ip)
			z.disc += int64(z.ip)
			z.in, z.ip = nil, 0
			var ok bool
			if n, ok = z.readRaw(dst); !ok {
				return
			}
		case z.pk != nil:
			if z.ip >= len(z.in) && !z.more() {
				z.short()
				return
			}
			n = copy(dst, z.in[z.ip:])
			z.ip += n
		case z.nb >= 8: // exact mode keeps no whole bytes, but be safe
			dst[0] = byte(z.take(8))
			n = 1
		default:
			var ok bool
			if n, ok = z.readRaw(dst); !ok {
				return
			}
		}
		z.op += n
		z.stored -= n
	}
	if z.stored == 0 {
		z.state = stHeader
	}
}

// readRaw reads stored bytes from the source straight into dst. It
// reports false when the input ended or failed first (the error is kept).
func (z *Reader) readRaw(dst []byte) (int, bool) {
	n, err := z.src.Read(dst)
	if n == 0 && err != nil {
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			z.rerr = err
		}
		z.short()
		return 0, false
	}
	z.disc += int64(n)
	return n, true
}

// codeOrder is the order of the code length code lengths (section 3.2.7).
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamicHeader reads the code lengths of a dynamic block and builds its
// tables (section 3.2.7). Checks follow compress/flate, so both accept and
// reject the same streams.
func (z *Reader) dynamicHeader() {
	if !z.need(14) {
		return
	}
	nlit := int(z.take(5)) + 257
	ndist := int(z.take(5)) + 1
	nclen := int(z.take(4)) + 4
	if nlit > maxLit {
		z.corrupt("too many literal/length codes")
		return
	}
	if ndist > maxDist && !z.d64 {
		z.corrupt("too many distance codes")
		return
	}
	if z.tabs == nil {
		z.tabs = tablePool.Get()
	}
	t := z.tabs
	var cl [19]uint8
	for i := range nclen {
		if !z.need(3) {
			return
		}
		cl[codeOrder[i]] = uint8(z.take(3))
	}
	if !build(t.clen[:], clenBits, cl[:], clenTmpl[:]) {
		z.corrupt("invalid code length code")
		return
	}
	lens := t.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		e, ok := z.sym(t.clen[:], clenBits)
		if !ok {
			return
		}
		if e&eBad != 0 {
			z.corrupt("invalid code length symbol")
			return
		}
		x := uint8(e >> 16)
		if x < 16 {
			lens[i] = x
			i++
			continue
		}
		var rep int
		var v uint8
		switch x {
		case 16:
			if i == 0 {
				z.corrupt("repeat with no previous length")
				return
			}
			if !z.need(2) {
				return
			}
			rep, v = 3+int(z.take(2)), lens[i-1]
		case 17:
			if !z.need(3) {
				return
			}
			rep = 3 + int(z.take(3))
		default:
			if !z.need(7) {
				return
			}
			rep = 11 + int(z.take(7))
		}
		if i+rep > len(lens) {
			z.corrupt("code lengths overflow")
			return
		}
		for range rep {
			lens[i] = v
			i++
		}
	}
	// A code without symbol 256 is accepted, as by zlib and compress/flate:
	// such a block never ends, so the stream fails later.
	lt, dt := &litTmpl, &distTmpl
	if z.d64 {
		lt, dt = &litTmpl64, &distTmpl64
	}
	if !build(t.lit[:], litBits, lens[:nlit], lt[:]) || !build(t.dist[:], distBits, lens[nlit:], dt[:]) {
		z.corrupt("invalid Huffman code")
		return
	}
	z.lit, z.dist = &t.lit, &t.dist
	z.state = stHuff
}
