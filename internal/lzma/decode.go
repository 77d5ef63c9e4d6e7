package lzma

// The hot loop. Range decoder state (range, code, input position) lives in
// locals and is threaded through small inlined helpers by value, so the
// compiler keeps it in registers. The input slice always has at least
// inSlack readable bytes past the position where a symbol may start
// (padding after the real end), so no symbol needs an input check.

const (
	// maxSymbolBytes bounds the input one symbol can consume: the range
	// decoder normalizes at most once per decoded bit and the longest
	// symbol (a match with a 26-bit distance) has 44 bits.
	maxSymbolBytes = 48
	// inSlack is the padding kept readable after the end of input data.
	inSlack  = 64
	topValue = 1 << 24
)

// status tells why decode returned.
type status uint8

const (
	stOK      status = iota // output limit or input limit reached
	stEnd                   // end marker decoded
	stBadDist               // a distance beyond the history
)

// decoder is the LZMA state carried across decode calls.
type decoder struct {
	m          *model
	lc, lp, pb uint32
	state      uint32
	rep0, rep1 uint32 // distances minus one
	rep2, rep3 uint32
	rng, code  uint32
	remLen     int // bytes of the current match not yet copied
}

// resetState starts a new LZMA state over the current model (probabilities
// to one half, state and distances to zero).
func (d *decoder) resetState() {
	d.m.resetLazy(int(d.lc), int(d.lp))
	d.state = 0
	d.rep0, d.rep1, d.rep2, d.rep3 = 0, 0, 0, 0
	d.remLen = 0
}

// bit decodes one bit with probability *p and normalizes (specification,
// "DecodeBit").
func bit(p *uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	v := uint32(*p)
	bound := (rng >> 11) * v
	b := uint32(0)
	if code < bound {
		rng = bound
		v += (2048 - v) >> 5
	} else {
		rng -= bound
		code -= bound
		v -= v >> 5
		b = 1
	}
	*p = uint16(v)
	if rng < topValue {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	return rng, code, ip, b
}

// tree3 decodes a 3-bit symbol from a bit tree.
func tree3(p *[8]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	var b uint32
	rng, code, ip, b = bit(&p[1], rng, code, in, ip)
	m := 2 | b
	rng, code, ip, b = bit(&p[m], rng, code, in, ip)
	m = m<<1 | b
	rng, code, ip, b = bit(&p[m&7], rng, code, in, ip)
	m = m<<1 | b
	return rng, code, ip, m - 8
}

// tree8 decodes an 8-bit symbol from a bit tree.
func tree8(p *[256]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	m := uint32(1)
	for m < 0x100 {
		var b uint32
		rng, code, ip, b = bit(&p[m&0xff], rng, code, in, ip)
		m = m<<1 | b
	}
	return rng, code, ip, m - 0x100
}

// decodeLen decodes a match length minus matchMinLen (specification, "The
// length decoder").
func decodeLen(l *lenModel, posState uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	var b, n uint32
	rng, code, ip, b = bit(&l.choice, rng, code, in, ip)
	if b == 0 {
		rng, code, ip, n = tree3(&l.low[posState&15], rng, code, in, ip)
		return rng, code, ip, n
	}
	rng, code, ip, b = bit(&l.choice2, rng, code, in, ip)
	if b == 0 {
		rng, code, ip, n = tree3(&l.mid[posState&15], rng, code, in, ip)
		return rng, code, ip, n + 8
	}
	rng, code, ip, n = tree8(&l.high, rng, code, in, ip)
	return rng, code, ip, n + 16
}

// decodeDist decodes a match distance minus one for a length of
// matchMinLen+n (specification, "The distance decoder").
func decodeDist(m *model, n uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	p := &m.posSlot[min(n, lenToPosStates-1)&3]
	slot := uint32(1)
	for slot < 64 {
		var b uint32
		rng, code, ip, b = bit(&p[slot&63], rng, code, in, ip)
		slot = slot<<1 | b
	}
	slot -= 64
	if slot < 4 {
		return rng, code, ip, slot
	}
	nd := slot>>1 - 1
	dist := (2 | slot&1) << nd
	if slot < endPosModelIndex {
		// Reverse bit tree over posSpec, based at dist-slot.
		base := dist - slot
		t := uint32(1)
		for i := uint32(0); i < nd; i++ {
			var b uint32
			rng, code, ip, b = bit(&m.posSpec[(base+t)&127], rng, code, in, ip)
			t = t<<1 | b
			dist |= b << i
		}
		return rng, code, ip, dist
	}
	// Direct bits, then the low numAlignBits with the align tree.
	var x uint32
	for i := nd - numAlignBits; i > 0; i-- {
		rng >>= 1
		code -= rng
		t := 0 - code>>31 // all ones when code went negative: bit 0
		code += rng & t
		x = x<<1 + t + 1
		if rng < topValue {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
	}
	dist += x << numAlignBits
	t := uint32(1)
	for i := uint32(0); i < numAlignBits; i++ {
		var b uint32
		rng, code, ip, b = bit(&m.align[t&15], rng, code, in, ip)
		t = t<<1 | b
		dist |= b << i
	}
	return rng, code, ip, dist
}

// litPlain decodes a literal after a literal: eight bits down the bit
// tree of probs (specification, "DecodeLiteral"), unrolled. It is a
// function of its own so that its few values stay in registers: inside
// decode, with everything else live, the compiler spilled them at every
// bit. The probabilities of both children are loaded before the bit is
// known, and the next one is chosen with the flags that choose the bit,
// taking the load off the bit-to-bit dependency chain. (Loading the four
// grandchildren a step ahead as well was slower: the compiler spilled
// them.)
func litPlain(probs *[litSize]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	sym := uint32(1)
	v := uint32(probs[1])
	sym, v, rng, code = litStep(probs, sym, v, uint32(probs[sym<<1&0x1ff]), uint32(probs[(sym<<1|1)&0x1ff]), rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym, v, rng, code = litStep(probs, sym, v, uint32(probs[sym<<1&0x1ff]), uint32(probs[(sym<<1|1)&0x1ff]), rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym, v, rng, code = litStep(probs, sym, v, uint32(probs[sym<<1&0x1ff]), uint32(probs[(sym<<1|1)&0x1ff]), rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym, v, rng, code = litStep(probs, sym, v, uint32(probs[sym<<1&0x1ff]), uint32(probs[(sym<<1|1)&0x1ff]), rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym, v, rng, code = litStep(probs, sym, v, uint32(probs[sym<<1&0x1ff]), uint32(probs[(sym<<1|1)&0x1ff]), rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym, v, rng, code = litStep(probs, sym, v, uint32(probs[sym<<1&0x1ff]), uint32(probs[(sym<<1|1)&0x1ff]), rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym, v, rng, code = litStep(probs, sym, v, uint32(probs[sym<<1&0x1ff]), uint32(probs[(sym<<1|1)&0x1ff]), rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym, _, rng, code = litStep(probs, sym, v, 0, 0, rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	return rng, code, ip, sym & 0xff
}

// litStep decodes one bit of a literal at node sym of probs, whose
// probability v and whose children's c0 and c1 are loaded, and returns
// the child node, its probability and the range coder state before
// normalization. Literal bits are close to random and
// would defeat branch prediction: both outcomes are computed and one is
// chosen, which the compiler makes conditional moves where the step is
// inlined outside a loop (in a loop it keeps the branch). They are also
// shorter on the bit-to-bit dependency chain than arithmetic masks.
func litStep(probs *[litSize]uint16, sym, v, c0, c1, rng, code uint32) (uint32, uint32, uint32, uint32) {
	bound := (rng >> 11) * v
	r, c, p, b := rng-bound, code-bound, v-v>>5, uint32(1)
	p0 := v + (2048-v)>>5
	if code < bound {
		r, c, p, b, c1 = bound, code, p0, 0, c0
	}
	probs[sym&0xff] = uint16(p)
	return sym<<1 | b, c1, r, c
}

// norm is the range decoder's normalization.
func norm(rng, code uint32, in []byte, ip int) (uint32, uint32, int) {
	if rng < topValue {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	return rng, code, ip
}

// litMatched decodes a literal after a match, with the byte at rep0 as
// context: while the decoded bits agree with match's, the probabilities
// come from the half of probs chosen by match's next bit; from the first
// disagreement on, from the plain tree. offs is 0x100 while they agree and
// 0 after, so the eight (unrolled) steps have no branch on the data either
// (the structure of 7-Zip's matched-literal loop); offs+bit+sym < 0x300.
// The eight steps are written out on purpose (the duplicate-code scan
// lists them): in a loop the compiler keeps the branch litStep avoids.
func litMatched(probs *[litSize]uint16, match uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	sym := uint32(1)
	offs := uint32(0x100)
	var bit, b, o uint32
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym = sym<<1 | b
	o = offs ^ bit
	if b == 0 {
		offs = o
	}
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym = sym<<1 | b
	o = offs ^ bit
	if b == 0 {
		offs = o
	}
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym = sym<<1 | b
	o = offs ^ bit
	if b == 0 {
		offs = o
	}
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym = sym<<1 | b
	o = offs ^ bit
	if b == 0 {
		offs = o
	}
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym = sym<<1 | b
	o = offs ^ bit
	if b == 0 {
		offs = o
	}
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym = sym<<1 | b
	o = offs ^ bit
	if b == 0 {
		offs = o
	}
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	sym = sym<<1 | b
	o = offs ^ bit
	if b == 0 {
		offs = o
	}
	match <<= 1
	bit = offs
	offs &= match
	b, rng, code = bitSel(&probs[offs+bit+sym], rng, code)
	rng, code, ip = norm(rng, code, in, ip)
	return rng, code, ip, (sym<<1 | b) & 0xff
}

// bitSel is litStep for a probability at p: it returns the bit.
func bitSel(p *uint16, rng, code uint32) (uint32, uint32, uint32) {
	v := uint32(*p)
	bound := (rng >> 11) * v
	r, c, pv := rng-bound, code-bound, v-v>>5
	p0 := v + (2048-v)>>5
	b := uint32(1)
	if code < bound {
		r = bound
		c = code
		pv = p0
		b = 0
	}
	*p = uint16(pv)
	return b, r, c
}

// copyMatch copies n bytes from dist bytes back (1 <= dist <= len(buf),
// the distance already checked against the history) to buf[pos:], which
// has room for them, and returns the new position. Overlapping matches
// (dist < n) repeat the pattern by doubling copies rather than bytewise.
func copyMatch(buf []byte, pos, dist, n int) int {
	src := pos - dist
	if src < 0 {
		// The source starts in the older data at the end of a wrapped
		// window; it lies after pos, so it is never overwritten here.
		src += len(buf)
		k := len(buf) - src
		if k >= n {
			copy(buf[pos:pos+n], buf[src:src+n])
			return pos + n
		}
		copy(buf[pos:pos+k], buf[src:])
		pos += k
		n -= k
		src = 0
	}
	if n <= pos-src {
		if n <= 8 {
			d := buf[pos : pos+n]
			s := buf[src : src+len(d)]
			for i := range d {
				d[i] = s[i]
			}
			return pos + n
		}
		copy(buf[pos:pos+n], buf[src:src+n])
		return pos + n
	}
	for n > 0 {
		k := min(n, pos-src)
		copy(buf[pos:pos+k], buf[src:src+k])
		pos += k
		n -= k
	}
	return pos
}

// decode decodes symbols into w.buf[w.pos:limit] from in[ip:], starting
// symbols only while ip <= inLimit (callers keep maxSymbolBytes readable
// past inLimit). It returns the input position, the window position at the
// start of the last symbol (to roll back one that read past the real end
// of input) and why it stopped.
func (d *decoder) decode(w *window, limit int, in []byte, ip, inLimit int) (int, int, status) {
	buf := w.buf
	pos := w.pos
	full := w.full
	m := d.m
	lit := m.lit
	gens, gen := m.litGen, m.gen
	rng, code := d.rng, d.code
	state := d.state
	rep0, rep1, rep2, rep3 := d.rep0, d.rep1, d.rep2, d.rep3
	pbMask := uint32(1)<<d.pb - 1
	lpMask := uint32(1)<<d.lp - 1
	lc := d.lc
	st := stOK
	symStart := pos

	if d.remLen > 0 {
		n := min(d.remLen, limit-pos)
		pos = copyMatch(buf, pos, int(rep0)+1, n)
		d.remLen -= n
	}

	out := buf[:limit] // writes go here: pos < len(out) needs no check
	for uint(pos) < uint(len(out)) && ip <= inLimit {
		symStart = pos
		posState := uint32(pos) & pbMask
		var b uint32
		rng, code, ip, b = bit(&m.isMatch[(state<<4|posState)&0xff], rng, code, in, ip)
		if b == 0 {
			// Literal (specification, "DecodeLiteral").
			var prev uint32
			if pos > 0 {
				prev = uint32(out[pos-1])
			} else if full {
				prev = uint32(buf[len(buf)-1])
			}
			c := (uint32(pos)&lpMask)<<lc + prev>>(8-lc)
			if gens[c] != gen {
				m.freshLit(c)
			}
			off := c * litSize
			probs := (*[litSize]uint16)(lit[off : off+litSize])
			var sym uint32
			if state >= numLitStates {
				src := pos - int(rep0) - 1
				if src < 0 {
					src += len(buf)
				}
				rng, code, ip, sym = litMatched(probs, uint32(buf[src]), rng, code, in, ip)
			} else {
				rng, code, ip, sym = litPlain(probs, rng, code, in, ip)
			}
			out[pos] = byte(sym)
			pos++
			state = uint32(litNext[state&15])
			continue
		}
		var n uint32
		rng, code, ip, b = bit(&m.isRep[state&15], rng, code, in, ip)
		if b == 0 {
			// Simple match: new distance.
			rep3, rep2, rep1 = rep2, rep1, rep0
			rng, code, ip, n = decodeLen(&m.matchLen, posState, rng, code, in, ip)
			state = matchNext(state)
			rng, code, ip, rep0 = decodeDist(m, n, rng, code, in, ip)
			if rep0 == 0xFFFFFFFF {
				st = stEnd
				break
			}
		} else {
			rng, code, ip, b = bit(&m.isRepG0[state&15], rng, code, in, ip)
			if b == 0 {
				rng, code, ip, b = bit(&m.isRep0Long[(state<<4|posState)&0xff], rng, code, in, ip)
				if b == 0 {
					// Short rep: one byte at rep0.
					if uint(rep0) >= uint(pos) && (!full || uint(rep0) >= uint(len(buf))) {
						st = stBadDist
						break
					}
					src := pos - int(rep0) - 1
					if src < 0 {
						src += len(buf)
					}
					out[pos] = buf[src]
					pos++
					state = shortRepNext(state)
					continue
				}
			} else {
				var dist uint32
				rng, code, ip, b = bit(&m.isRepG1[state&15], rng, code, in, ip)
				if b == 0 {
					dist = rep1
				} else {
					rng, code, ip, b = bit(&m.isRepG2[state&15], rng, code, in, ip)
					if b == 0 {
						dist = rep2
					} else {
						dist = rep3
						rep3 = rep2
					}
					rep2 = rep1
				}
				rep1 = rep0
				rep0 = dist
			}
			rng, code, ip, n = decodeLen(&m.repLen, posState, rng, code, in, ip)
			state = repNext(state)
		}
		if uint(rep0) >= uint(pos) && (!full || uint(rep0) >= uint(len(buf))) {
			st = stBadDist
			break
		}
		k := int(n) + matchMinLen
		if k > limit-pos {
			d.remLen = k - (limit - pos)
			k = limit - pos
		}
		pos = copyMatch(buf, pos, int(rep0)+1, k)
	}

	w.pos = pos
	d.rng, d.code = rng, code
	d.state = state
	d.rep0, d.rep1, d.rep2, d.rep3 = rep0, rep1, rep2, rep3
	return ip, symStart, st
}
