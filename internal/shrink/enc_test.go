package shrink

import "github.com/go-unarc/unarc/internal/testutil"

// A test-only Shrink encoder: no tool on this machine writes method 1
// (zip 3.0 writes Store, Deflate and BZip2), so the round trips below
// make their streams with it. It mirrors what the decoder must accept:
// a new string is defined after each code, in the lowest free code, when
// the next code is about to be written; 256,1 raises the code size when a
// code no longer fits; 256,2 (partial clear) runs when the table is full
// and, to exercise it on small inputs, every clearEvery codes.

// bitWriter is the shared LSB-first test writer.
type bitWriter = testutil.LSBWriter

type encoder struct {
	bw         bitWriter
	bits       uint
	prefix     [numCodes]uint16
	suffix     [numCodes]byte
	inMap      [numCodes]bool
	m          map[uint32]uint16
	queue      []uint16
	clearEvery int // 0: only when full
	sinceClear int
	clears     int
	incs       int
}

func key(p uint16, b byte) uint32 { return uint32(p)<<8 | uint32(b) }

func (e *encoder) emit(c uint16) {
	for uint32(c) >= 1<<e.bits {
		e.bw.Put(control, e.bits)
		e.bw.Put(1, e.bits)
		e.bits++
		e.incs++
	}
	e.bw.Put(uint32(c), e.bits)
}

func (e *encoder) partialClear() {
	e.bw.Put(control, e.bits)
	e.bw.Put(2, e.bits)
	e.clears++
	var isPrefix [numCodes]bool
	for i := first; i < numCodes; i++ {
		if e.prefix[i] != free {
			isPrefix[e.prefix[i]] = true
		}
	}
	e.queue = e.queue[:0]
	for i := first; i < numCodes; i++ {
		if !isPrefix[i] {
			if e.inMap[i] {
				delete(e.m, key(e.prefix[i], e.suffix[i]))
				e.inMap[i] = false
			}
			e.prefix[i] = free
			e.queue = append(e.queue, uint16(i))
		}
	}
}

func shrinkData(data []byte, clearEvery int) (out []byte, clears, incs int) {
	e := &encoder{bits: minBits, m: map[uint32]uint16{}, clearEvery: clearEvery}
	for i := range 256 {
		e.prefix[i] = uint16(i)
	}
	for i := 256; i < numCodes; i++ {
		e.prefix[i] = free
	}
	for i := first; i < numCodes; i++ {
		e.queue = append(e.queue, uint16(i))
	}
	if len(data) == 0 {
		return nil, 0, 0
	}
	w := uint16(data[0])
	for _, b := range data[1:] {
		if c, ok := e.m[key(w, b)]; ok {
			w = c
			continue
		}
		e.emit(w)
		e.sinceClear++
		if len(e.queue) == 0 || (e.clearEvery > 0 && e.sinceClear >= e.clearEvery) {
			e.partialClear()
			e.sinceClear = 0
		}
		if len(e.queue) > 0 {
			nc := e.queue[0]
			e.queue = e.queue[1:]
			e.prefix[nc], e.suffix[nc] = w, b
			if e.prefix[w] != free && nc != w {
				e.m[key(w, b)] = nc
				e.inMap[nc] = true
			}
		}
		w = uint16(b)
	}
	e.emit(w)
	return e.bw.Flush(), e.clears, e.incs
}
