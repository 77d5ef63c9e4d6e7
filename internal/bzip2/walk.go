package bzip2

// The output walk of an inverted block on several chains at once.
//
// The walk through tt is a chain of dependent loads, one per byte, at
// positions all over a table of up to 3.6 MB: one chain waits for memory
// at every step. The cycle it follows can be cut anywhere, though: walk
// marks walkSegs positions of tt (bit 31, free since indexes take at most
// 20 bits), and walkLanes chains each start at one of them and stop at the
// next marked position they meet. That is where another segment starts,
// so the segments, chained by where each one stopped, are the walk in
// pieces; their loads are independent, so the lanes' misses overlap. The
// lanes write into pages of out taken in turn, and the pieces of each
// segment, in cycle order, become the spans that bytesOut reads.
//
// Only for a valid block do the segments chain into one cycle of the
// block's length from the walk's start. Anything else (a table that is
// not one cycle, as damaged data can give) is found when the segments are
// chained, or when the pages run out, and the block is walked again on
// one chain: the bytes are always those of the plain walk.

const (
	walkLanes = 6       // chains walked at once (fast6)
	walkSegs  = 64      // segments the cycle is cut into (at most 64: seen is a uint64)
	walkPage  = 2 << 10 // the lanes' unit of output
	walkMin   = 64 << 10
	walkMark  = 1 << 31
	walkIdx   = 1<<23 - 1 // the index in e>>8 without the mark

	// maxSpans bounds the spans of a block of the largest size: one per
	// segment and one more each time a lane starts a page.
	maxSpans = walkSegs + (9*100_000)/walkPage + walkLanes + 2
)

// walkCap is the length of the out buffer the walk of a block of bs
// bytes needs: the block and a page for each lane.
func walkCap(bs int) int {
	return (bs/walkPage + walkLanes + 1) * walkPage
}

// span is a piece of the walked block in out.
type span struct{ off, n uint32 }

// walker is the scratch of walk, part of a decoder.
type walker struct {
	starts   [walkSegs]uint32 // the marked positions, ascending; segment k starts at starts[k]
	segLen   [walkSegs]int32
	segNext  [walkSegs]int8 // the segment met at the end of each
	segFirst [walkSegs]int16
	segLast  [walkSegs]int16
	spanNext [maxSpans]int16
	spans    [maxSpans]span // in the order they were made
	order    [maxSpans]span // in the order of the walk
}

// lane is one chain of the walk.
type lane struct {
	pos  uint32 // next position to load
	o    int    // next byte of out
	end  int    // end of the lane's page
	seg  int    // the segment it walks; -1: idle
	span int    // its current span
	from int    // out offset where the current span began
}

// walk writes the n = len(tt) bytes of the inverted block's walk from
// origPtr into out (walkCap(n) long) and returns them as spans in order.
func (w *walker) walk(tt []uint32, origPtr int, out []byte) []span {
	n := len(tt)
	if n < walkMin || len(out) < walkCap(n) {
		walk1(tt, origPtr, out[:n])
		w.order[0] = span{0, uint32(n)}
		return w.order[:1]
	}
	p0 := tt[origPtr] >> 8
	head := 0
	for k := range walkSegs {
		w.starts[k] = uint32(k * n / walkSegs)
		if w.starts[k] <= p0 {
			head = k
		}
	}
	w.starts[head] = p0 // still ascending: p0 is below the next start
	for _, s := range w.starts {
		tt[s] |= walkMark
	}
	k := -1
	if w.run(tt, out) {
		k = w.chain(head, n)
	}
	if k < 0 {
		for _, s := range w.starts {
			tt[s] &^= walkMark
		}
		walk1(tt, origPtr, out[:n])
		w.order[0] = span{0, uint32(n)}
		return w.order[:1]
	}
	return w.order[:k]
}

// run walks the segments on the lanes; false when out ran out of pages.
func (w *walker) run(tt []uint32, out []byte) bool {
	var ln [walkLanes]lane
	nextSeg, nextPage, nSpans := 0, 0, 0
	pages := len(out) / walkPage
	active := 0

	// newPage gives l a fresh page; false when there is none.
	newPage := func(l *lane) bool {
		if nextPage >= pages {
			return false
		}
		l.o = nextPage * walkPage
		l.end = l.o + walkPage
		nextPage++
		return true
	}
	// closeSpan ends l's current span at l.o.
	closeSpan := func(l *lane) {
		sp := &w.spans[l.span]
		sp.n = uint32(l.o - l.from)
		w.segLen[l.seg] += int32(sp.n)
	}
	// openSpan starts a span of l's segment at l.o.
	openSpan := func(l *lane) bool {
		if nSpans >= maxSpans {
			return false
		}
		k := nSpans
		nSpans++
		w.spans[k] = span{off: uint32(l.o)}
		w.spanNext[k] = -1
		if w.segLast[l.seg] >= 0 {
			w.spanNext[w.segLast[l.seg]] = int16(k)
		} else {
			w.segFirst[l.seg] = int16(k)
		}
		w.segLast[l.seg] = int16(k)
		l.span, l.from = k, l.o
		return true
	}
	// startSeg gives l the next segment and emits its first byte.
	startSeg := func(l *lane) bool {
		if nextSeg >= walkSegs {
			l.seg = -1
			return true
		}
		k := nextSeg
		nextSeg++
		w.segLen[k], w.segNext[k] = 0, -1
		w.segFirst[k], w.segLast[k] = -1, -1
		l.seg = k
		if l.o == l.end && !newPage(l) {
			return false
		}
		if !openSpan(l) {
			return false
		}
		e := tt[w.starts[k]]
		out[l.o] = byte(e)
		l.o++
		l.pos = e >> 8 & walkIdx
		return true
	}
	// step moves l one byte on, handling the end of its segment and of
	// its page.
	step := func(l *lane) bool {
		e := tt[l.pos]
		if e&walkMark != 0 {
			closeSpan(l)
			w.segNext[l.seg] = int8(w.find(l.pos))
			if !startSeg(l) {
				return false
			}
			if l.seg < 0 {
				active--
			}
			return true
		}
		if l.o == l.end {
			closeSpan(l)
			if !newPage(l) || !openSpan(l) {
				return false
			}
		}
		out[l.o] = byte(e)
		l.o++
		l.pos = e >> 8
		return true
	}

	for i := range ln {
		l := &ln[i]
		l.seg = -1
		if !newPage(l) || !startSeg(l) {
			return false
		}
		if l.seg >= 0 {
			active++
		}
	}
	for active > 0 {
		if active == walkLanes {
			fast6(tt, out, &ln)
		}
		for i := range ln {
			if ln[i].seg >= 0 && !step(&ln[i]) {
				return false
			}
		}
	}
	return true
}

// find returns the segment starting at the marked position pos.
func (w *walker) find(pos uint32) int {
	lo, hi := 0, walkSegs
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if w.starts[m] <= pos {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// chain links the segments from head and lays their spans out in order
// of the walk, returning how many there are; -1 unless the segments form
// one cycle of n bytes.
func (w *walker) chain(head, n int) int {
	var seen uint64
	total, k := 0, 0
	s := head
	for range walkSegs {
		if s < 0 || seen&(1<<s) != 0 {
			return -1
		}
		seen |= 1 << s
		total += int(w.segLen[s])
		for sp := w.segFirst[s]; sp >= 0; sp = w.spanNext[sp] {
			if w.spans[sp].n > 0 {
				w.order[k] = w.spans[sp]
				k++
			}
		}
		s = int(w.segNext[s])
	}
	if s != head || total != n {
		return -1
	}
	return k
}

// walk1 is the walk on one chain: out gets the n = len(out) bytes from
// origPtr.
func walk1(tt []uint32, origPtr int, out []byte) {
	tt = tt[:len(out)]
	p := tt[origPtr] >> 8
	for i := range out {
		e := tt[p]
		p = e >> 8
		out[i] = byte(e)
	}
}

// fast6 moves all six lanes on together as long as none meets a mark or
// the end of its page. (Six measured faster than four on the benchmark
// stream's blocks, eight no faster than six.)
func fast6(tt []uint32, out []byte, ln *[walkLanes]lane) {
	r := min(ln[0].end-ln[0].o, ln[1].end-ln[1].o, ln[2].end-ln[2].o, ln[3].end-ln[3].o, ln[4].end-ln[4].o, ln[5].end-ln[5].o)
	p0, p1, p2, p3, p4, p5 := ln[0].pos, ln[1].pos, ln[2].pos, ln[3].pos, ln[4].pos, ln[5].pos
	o0, o1, o2, o3, o4, o5 := ln[0].o, ln[1].o, ln[2].o, ln[3].o, ln[4].o, ln[5].o
	for ; r > 0; r-- {
		e0, e1, e2, e3, e4, e5 := tt[p0], tt[p1], tt[p2], tt[p3], tt[p4], tt[p5]
		if int32(e0|e1|e2|e3|e4|e5) < 0 {
			break
		}
		out[o0] = byte(e0)
		out[o1] = byte(e1)
		out[o2] = byte(e2)
		out[o3] = byte(e3)
		out[o4] = byte(e4)
		out[o5] = byte(e5)
		o0++
		o1++
		o2++
		o3++
		o4++
		o5++
		p0, p1, p2, p3, p4, p5 = e0>>8, e1>>8, e2>>8, e3>>8, e4>>8, e5>>8
	}
	ln[0].pos, ln[1].pos, ln[2].pos, ln[3].pos, ln[4].pos, ln[5].pos = p0, p1, p2, p3, p4, p5
	ln[0].o, ln[1].o, ln[2].o, ln[3].o, ln[4].o, ln[5].o = o0, o1, o2, o3, o4, o5
}
