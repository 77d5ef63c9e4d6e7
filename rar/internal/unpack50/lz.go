package unpack50

import (
	"math"

	"github.com/go-unarc/unarc/internal/errs"
)

// Length slots (unrar SlotToLength): slot < 8 is length 2+slot; above,
// (4|slot&3) << (slot/4-1) plus that many extra bits, plus 2.
var lenBase, lenBits [rc]uint32

// Distance slots: slot < 4 is distance 1+slot; above, 1 + (2|slot&1) <<
// (slot/2-1) plus that many extra bits (the low 4 from the LDD table once
// there are at least 4).
var distBase [dcx]uint64
var distBits [dcx]uint8

func init() {
	for s := uint32(0); s < rc; s++ {
		if s < 8 {
			lenBase[s] = 2 + s
			continue
		}
		b := s/4 - 1
		lenBase[s] = 2 + (4|s&3)<<b
		lenBits[s] = b
	}
	for s := uint64(0); s < dcx; s++ {
		if s < 4 {
			distBase[s] = 1 + s
			continue
		}
		b := s/2 - 1
		distBase[s] = 1 + (2|s&1)<<b
		distBits[s] = uint8(b)
	}
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
	// Budget: never overwrite bytes not yet handed out, stop at the
	// window end, and give up on streams running far past the entry size.
	budget := d.entryEnd - d.total + maxOvershoot
	if d.entryEnd == math.MaxInt64 {
		budget = math.MaxInt64
	}
	if budget <= 0 {
		return errs.Corrupt("rar5: data far beyond the entry size")
	}
	if !d.linear() {
		room := int64(d.wsize) - maxIncLZMatch - (d.total - d.rpos)
		budget = min(budget, room)
	}
	stopW := d.wsize
	if budget < int64(stopW-d.w) {
		stopW = d.w + int(budget)
	}
	err := d.lz(stopW)
	if d.w >= d.wsize {
		if d.linear() {
			d.grow()
		}
		if !d.linear() && d.w >= d.wsize {
			// The pass overran into the tail: move it to the front.
			copy(d.win, d.win[d.wsize:d.w])
			d.w -= d.wsize
		}
	}
	return err
}

// lz is the hot loop: decode symbols while d.w < stopW.
func (d *Decoder) lz(stopW int) error {
	br := &d.br
	t := d.t
	win := d.win
	fastLimit := -1
	for d.w < stopW {
		if br.pos >= fastLimit {
			if err := d.slowCheck(); err != nil {
				return err
			}
			if d.streamDone {
				return nil
			}
			fastLimit = br.end - fastMargin
			if be := int(d.blockEnd>>3 - br.base); be < fastLimit {
				fastLimit = be
			}
		}
		sym := br.decodeSym(&t.ld)
		if sym < 256 {
			win[d.w] = byte(sym)
			d.w++
			d.total++
			continue
		}
		if sym >= 262 {
			slot := sym - 262
			length := int(lenBase[slot])
			if lb := uint(lenBits[slot]); lb > 0 {
				length += int(br.get(lb))
			}
			ds := br.decodeSym(&t.dd)
			dist := distBase[ds]
			if db := uint(distBits[ds]); db >= 4 {
				if db > 4 {
					br.refill()
					dist += (br.bits >> (64 - (db - 4))) << 4
					br.skip(db - 4)
				}
				dist += uint64(br.decodeSym(&t.ldd))
			} else if db > 0 {
				dist += uint64(br.get(db))
			}
			if dist > 0x100 {
				length++
				if dist > 0x2000 {
					length++
					if dist > 0x40000 {
						length++
					}
				}
			}
			d.oldDist[3], d.oldDist[2], d.oldDist[1], d.oldDist[0] = d.oldDist[2], d.oldDist[1], d.oldDist[0], dist
			d.lastLen = length
			d.copyMatch(length, dist)
			continue
		}
		switch sym {
		case 256:
			if err := d.readFilter(); err != nil {
				return err
			}
			if len(d.filters)-d.fhead >= maxFilters {
				return nil // let the caller drain finished filters
			}
		case 257:
			if d.lastLen != 0 {
				d.copyMatch(d.lastLen, d.oldDist[0])
			}
		default: // 258..261: one of the last four distances
			n := sym - 258
			dist := d.oldDist[n]
			for i := n; i > 0; i-- {
				d.oldDist[i] = d.oldDist[i-1]
			}
			d.oldDist[0] = dist
			slot := br.decodeSym(&t.rd)
			length := int(lenBase[slot])
			if lb := uint(lenBits[slot]); lb > 0 {
				length += int(br.get(lb))
			}
			d.lastLen = length
			d.copyMatch(length, dist)
		}
	}
	return nil
}

// copyMatch copies length bytes from dist back. Like unrar, a distance
// reaching before the stream start or beyond the dictionary yields zeros.
func (d *Decoder) copyMatch(length int, dist uint64) {
	w := d.w
	win := d.win
	if dist > uint64(d.total) || dist > uint64(d.dict) {
		clear(win[w : w+length])
	} else if src := w - int(dist); src >= 0 {
		if int(dist) >= length {
			copy(win[w:w+length], win[src:src+length])
		} else {
			for i := range length {
				win[w+i] = win[src+i]
			}
		}
	} else {
		src += d.wsize
		for i := range length {
			win[w+i] = win[src]
			src++
			if src == d.wsize {
				src = 0
			}
		}
	}
	d.w = w + length
	d.total += int64(length)
}
