package unpack50

import (
	"encoding/binary"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
)

// Length slots (unrar SlotToLength): slot < 8 is length 2+slot; above,
// (4|slot&3) << (slot/4-1) plus that many extra bits, plus 2.
var lenBase, lenBits [64]uint32 // rc used; sized for masking away bounds checks

// Distance slots: slot < 4 is distance 1+slot; above, 1 + (2|slot&1) <<
// (slot/2-1) plus that many extra bits (the low 4 from the LDD table once
// there are at least 4).
var distBase [128]uint64 // dcx used
var distBits [128]uint8

func init() {
	for s := uint(0); s < rc; s++ {
		base, bits := slot(s, 2)
		lenBase[s], lenBits[s] = 2+uint32(base), uint32(bits)
	}
	for s := uint(0); s < dcx; s++ {
		base, bits := slot(s, 1)
		distBase[s], distBits[s] = 1+base, uint8(bits)
	}
}

// slot is the base (before its offset: 2 for lengths, 1 for distances)
// and extra bits of slot s of a table with 1<<step slots per power of
// two: the first 2<<step slots are their own base; then slot s has
// s>>step - 1 extra bits.
func slot(s, step uint) (base uint64, bits uint) {
	n := uint(1) << step
	if s < 2*n {
		return uint64(s), 0
	}
	b := s>>step - 1
	return uint64(n|s&(n-1)) << b, b
}

// slowCheck runs where the fast loop cannot vouch for the input: near the
// end of the buffered input or of the block. It refills input, detects
// truncation and moves to the next block when the current one is done.
func (d *Decoder) slowCheck() error {
	br := &d.br
	br.fill()
	bp := br.bitPos()
	if bp <= br.endBits() && d.entryEnd != math.MaxInt64 && d.total >= d.entryEnd {
		d.complete = true
	}
	for {
		if bp > br.endBits() {
			if d.complete {
				// unrar stops quietly when the input ends after the
				// entry's data even without a last-block flag.
				d.streamDone = true
				return nil
			}
			return br.check()
		}
		if bp < d.blockEnd {
			return nil
		}
		if d.lastBlock {
			d.streamDone = true
			return nil
		}
		if err := d.readBlockHeader(); err != nil {
			if d.complete && br.bitPos() > br.endBits() {
				d.streamDone = true
				return nil
			}
			return err
		}
		bp = br.bitPos()
	}
}

// decode decodes symbols until the window pass is full, the entry is
// done, or the filter queue needs draining.
func (d *Decoder) decode() error {
	for d.linear() && d.w >= d.wsize-maxIncLZMatch {
		d.grow()
	}
	if d.tokPending {
		// The entry's first pass: pipelined unless checkpoints are
		// wanted or the stream does not start at a block header
		// (ResetAt).
		d.tokPending = false
		if d.cpFn == nil && d.blockEnd == -1 {
			d.startTokens()
		}
	}
	// Budget: never overwrite bytes not yet handed out, stop at the
	// window end, and give up on streams running far past the entry size.
	budget := d.entryEnd - d.total + maxOvershoot
	if d.entryEnd == math.MaxInt64 {
		budget = math.MaxInt64
	}
	if budget <= 0 {
		return errs.Corrupt("rar5: data far beyond the entry size")
	}
	if d.cpFn != nil {
		// Stop where a checkpoint is wanted; past it (a filter was
		// pending there), in short passes until one can be taken.
		if to := d.entryStart + d.cpNext - d.total; to > 0 {
			budget = min(budget, to)
		} else {
			budget = min(budget, cpRetry)
		}
	}
	if !d.linear() {
		room := int64(d.wsize) - maxIncLZMatch - (d.total - d.rpos)
		budget = min(budget, room)
	}
	stopTotal := d.total + budget
	// The fast loop keeps a whole match of room before the window end.
	limit := d.wsize - maxIncLZMatch
	stopW := limit
	if budget < int64(stopW-d.w) {
		stopW = d.w + int(budget)
	}
	lz := d.lz
	if d.tok {
		lz = d.applyTokens
	}
	if err := lz(stopW); err != nil || d.streamDone || d.w < limit {
		return err
	}
	if d.linear() {
		return nil // grown on the next call
	}
	// Circular window near its end: symbol by symbol with wrap-around
	// until the write position is back at the start.
	for d.w >= limit && d.total < stopTotal && !d.streamDone {
		sym := d.carefulSymbol
		if d.tok {
			sym = d.applyCareful
		}
		if err := sym(); err != nil {
			return err
		}
		if len(d.filters)-d.fhead >= maxFilters {
			return nil
		}
	}
	return nil
}

// lz is the hot loop: decode symbols while d.w < stopW, which leaves room
// for a whole match before the window end. Literals, the common case, run
// on local copies of the bit buffer and write position; everything else
// syncs them back and uses the methods.
func (d *Decoder) lz(stopW int) error {
	br := &d.br
	t := d.t
	win := d.win
	quick := &t.ld.quick
	fastLimit := -1
	w := d.w
	bits, n, pos := br.bits, br.n, br.pos
	buf := br.buf
	for w < stopW {
		if pos >= fastLimit {
			br.bits, br.n, br.pos = bits, n, pos
			d.total += int64(w - d.w)
			d.w = w
			if err := d.slowCheck(); err != nil {
				return err
			}
			if d.streamDone {
				return nil
			}
			bits, n, pos = br.bits, br.n, br.pos
			buf = br.buf
			fastLimit = br.end - fastMargin
			if be := int(d.blockEnd>>3 - br.base); be < fastLimit {
				fastLimit = be
			}
		}
		if n <= 56 {
			bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
			pos += int(63-n) >> 3
			n |= 56
		}
		var sym uint
		if e := quick[bits>>(64-mainQuickBits)&(1<<mainQuickBits-1)]; e != 0 {
			l := uint(e & 15)
			bits <<= l
			n -= l
			sym = uint(e >> 4)
		} else {
			s, l := t.ld.slow(uint32(bits >> 48))
			bits <<= l
			n -= l
			sym = uint(s)
		}
		if sym < 256 {
			if uint(w) < uint(len(win)) {
				win[w] = byte(sym)
			}
			w++
			continue
		}
		if sym >= 262 {
			// Deliberate copy of readMatch (the careful path): here the
			// bit buffer lives in locals (bits, n, pos) across the whole
			// symbol, which a call through br would spill on every
			// match. After the main code at least 41 bits remain:
			// enough for 9 length bits.
			slot := sym - 262
			length := int(lenBase[slot&63])
			if lb := uint(lenBits[slot&63]); lb > 0 {
				length += int(bits >> (64 - lb))
				bits <<= lb
				n -= lb
			}
			if n <= 56 {
				bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
				pos += int(63-n) >> 3
				n |= 56
			}
			var ds uint
			if e := t.dd.quick[bits>>(64-distQuickBits)]; e != 0 {
				ds = uint(e >> 4)
				bits <<= e & 15
				n -= uint(e & 15)
			} else {
				var l uint
				ds, l = t.dd.slowBits(bits)
				bits <<= l
				n -= l
			}
			dist := distBase[ds&127]
			if db := uint(distBits[ds&127]); db >= 4 {
				if db > 4 {
					if n <= 56 {
						bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
						pos += int(63-n) >> 3
						n |= 56
					}
					dist += (bits >> (64 - (db - 4))) << 4
					bits <<= db - 4
					n -= db - 4
				}
				if n <= 56 {
					bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
					pos += int(63-n) >> 3
					n |= 56
				}
				if e := t.ldd.quick[bits>>(64-lowQuickBits)]; e != 0 {
					dist += uint64(e >> 4)
					bits <<= e & 15
					n -= uint(e & 15)
				} else {
					low, l := t.ldd.slowBits(bits)
					bits <<= l
					n -= l
					dist += uint64(low)
				}
			} else if db > 0 {
				dist += bits >> (64 - db)
				bits <<= db
				n -= db
			}
			length += int(distBonus(dist))
			d.oldDist[3], d.oldDist[2], d.oldDist[1], d.oldDist[0] = d.oldDist[2], d.oldDist[1], d.oldDist[0], dist
			d.lastLen = length
			d.total += int64(w - d.w)
			d.w = w
			d.copyMatch(length, dist)
			w = d.w
			continue
		}
		br.bits, br.n, br.pos = bits, n, pos
		d.total += int64(w - d.w)
		d.w = w
		switch {
		case sym == 256:
			if err := d.readFilter(); err != nil {
				return err
			}
			if len(d.filters)-d.fhead >= maxFilters {
				return nil // let the caller drain finished filters
			}
		case sym == 257:
			if d.lastLen != 0 {
				d.copyMatch(d.lastLen, d.oldDist[0])
			}
		default:
			length, dist := d.readRepeat(sym)
			d.copyMatch(length, dist)
		}
		w = d.w
		bits, n, pos = br.bits, br.n, br.pos
	}
	br.bits, br.n, br.pos = bits, n, pos
	d.total += int64(w - d.w)
	d.w = w
	return nil
}

// carefulSymbol decodes one symbol, wrapping writes at the window end.
func (d *Decoder) carefulSymbol() error {
	if err := d.slowCheck(); err != nil || d.streamDone {
		return err
	}
	sym := d.br.decodeSym(&d.t.ld)
	switch {
	case sym < 256:
		d.win[d.w] = byte(sym)
		d.w++
		if d.w == d.wsize {
			d.w = 0
		}
		d.total++
	case sym >= 262:
		length, dist := d.readMatch(sym)
		d.copyWrap(length, dist)
	case sym == 256:
		return d.readFilter()
	case sym == 257:
		if d.lastLen != 0 {
			d.copyWrap(d.lastLen, d.oldDist[0])
		}
	default:
		length, dist := d.readRepeat(sym)
		d.copyWrap(length, dist)
	}
	return nil
}

// distBonus is what a match's length gains from its distance (unrar
// Unpack5: one more above 0x100, 0x2000 and 0x40000 each).
func distBonus(dist uint64) uint {
	n := uint(0)
	if dist > 0x100 {
		n++
		if dist > 0x2000 {
			n++
			if dist > 0x40000 {
				n++
			}
		}
	}
	return n
}

// readMatch reads the rest of a new match (main symbol 262..305): length
// slot extra bits, distance slot, distance bits; it updates the repeated
// distances (unrar Unpack5, "MainSlot>=262").
//
// The fast loop in lz holds a deliberate copy of this on its local bit
// buffer; a change here belongs there too.
func (d *Decoder) readMatch(sym uint) (int, uint64) {
	br := &d.br
	slot := sym - 262
	length := int(lenBase[slot])
	if lb := uint(lenBits[slot]); lb > 0 {
		length += int(br.get(lb))
	}
	ds := br.decodeSym(&d.t.dd)
	dist := distBase[ds]
	if db := uint(distBits[ds]); db >= 4 {
		if db > 4 {
			br.refill()
			dist += (br.bits >> (64 - (db - 4))) << 4
			br.skip(db - 4)
		}
		dist += uint64(br.decodeSym(&d.t.ldd))
	} else if db > 0 {
		dist += uint64(br.get(db))
	}
	length += int(distBonus(dist))
	d.oldDist[3], d.oldDist[2], d.oldDist[1], d.oldDist[0] = d.oldDist[2], d.oldDist[1], d.oldDist[0], dist
	d.lastLen = length
	return length, dist
}

// readRepeat handles main symbols 258..261: reuse one of the last four
// distances, moving it to the front, with a length from the RD table.
func (d *Decoder) readRepeat(sym uint) (int, uint64) {
	n := sym - 258
	dist := d.oldDist[n]
	for i := n; i > 0; i-- {
		d.oldDist[i] = d.oldDist[i-1]
	}
	d.oldDist[0] = dist
	br := &d.br
	slot := br.decodeSym(&d.t.rd)
	length := int(lenBase[slot])
	if lb := uint(lenBits[slot]); lb > 0 {
		length += int(br.get(lb))
	}
	d.lastLen = length
	return length, dist
}

// copyWrap is copyMatch for a destination that may cross the window end.
func (d *Decoder) copyWrap(length int, dist uint64) {
	w, win, ws := d.w, d.win, d.wsize
	if dist > uint64(d.total) || dist > uint64(d.dict) {
		for range length {
			win[w] = 0
			if w++; w == ws {
				w = 0
			}
		}
	} else {
		src := w - int(dist)
		if src < 0 {
			src += ws
		}
		for range length {
			win[w] = win[src]
			if w++; w == ws {
				w = 0
			}
			if src++; src == ws {
				src = 0
			}
		}
	}
	d.w = w
	d.total += int64(length)
}

// copyMatch copies length bytes from dist back; the destination fits
// before the window end. Like unrar, a distance reaching before the stream
// start or beyond the dictionary yields zeros.
func (d *Decoder) copyMatch(length int, dist uint64) {
	if d.naive {
		d.copyWrap(length, dist)
		return
	}
	w := d.w
	win := d.win
	d.w = w + length
	d.total += int64(length)
	if dist > uint64(d.total-int64(length)) || dist > uint64(d.dict) {
		clear(win[w : w+length])
		return
	}
	src := w - int(dist)
	if src < 0 {
		src += d.wsize // from the previous pass over the window
		if src+length > d.wsize {
			// The source itself wraps: rare, byte by byte.
			for i := range length {
				win[w+i] = win[src]
				if src++; src == d.wsize {
					src = 0
				}
			}
			return
		}
		if src < w+length {
			// dist is close to the window size: the source lies just
			// ahead of the destination. Forward bytes read old data,
			// as unrar's loop does.
			for i := range length {
				win[w+i] = win[src+i]
			}
			return
		}
	}
	dst := win[w : w+length]
	from := win[src : src+length]
	if length < 8 || (src < w && w-src < 8) {
		for i := range dst {
			dst[i] = from[i]
		}
		return
	}
	// 8-byte steps: with dist >= 8 each step reads bytes already final;
	// the last step is realigned to end exactly at the match end (it
	// rewrites a few bytes with the same values), so nothing past the
	// match is touched and the oldest history survives.
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(from[i:]))
	}
	if i < len(dst) {
		j := len(dst) - 8
		binary.LittleEndian.PutUint64(dst[j:], binary.LittleEndian.Uint64(from[j:]))
	}
}
