package lzma

import "math/bits"

// The LZMA encoder core: the state machine and the symbol coders over the
// probability model shared with the decoder (model.go). The parsers
// (enc_fast.go, enc_opt.go) decide the symbols; the match finder
// (matchfinder.go) owns the window.

// encoder encodes one LZMA stream (or the LZMA chunks of an LZMA2 block)
// from the window of its match finder.
type encoder struct {
	cfg   encConfig
	m     *model
	rc    rangeEnc
	mf    matchFinder
	state uint32
	reps  [4]uint32 // distances (not distance - 1) of the last matches
	pos   int64     // bytes encoded in the stream (posState, literal position)
	ahead int       // how far the match finder is ahead of the encoder

	lpMask, pbMask uint32
	lc             uint

	// parser state (enc_fast.go, enc_opt.go)
	matches    [2*(matchMaxLen+1) + 2]uint32
	numPairs   int
	numAvail   int
	longestLen int
	backRes    uint32
	pr         prices
	opt        [kNumOpts]optimal
	optCur     int
	optEnd     int
}

// init resets the model and state for a new stream with cfg's properties.
func (e *encoder) resetState() {
	e.m.reset(e.cfg.lc, e.cfg.lp)
	e.state = 0
	e.reps = [4]uint32{1, 1, 1, 1}
	e.lpMask = 1<<uint(e.cfg.lp) - 1
	e.pbMask = 1<<uint(e.cfg.pb) - 1
	e.lc = uint(e.cfg.lc)
}

// litProbs returns the literal coder for position pos after byte prev.
func (e *encoder) litProbs(pos int64, prev byte) []uint16 {
	i := ((uint32(pos) & e.lpMask) << e.lc) + uint32(prev)>>(8-e.lc)
	return e.m.lit[litSize*i : litSize*i+litSize]
}

// encodeLiteral codes byte c at the current position; cur indexes c in the
// window.
func (e *encoder) encodeLiteral(cur int) {
	buf := e.mf.buf
	posState := uint32(e.pos) & e.pbMask
	e.rc.bit(&e.m.isMatch[e.state<<4|posState], 0)
	var prev byte
	if e.pos > 0 {
		prev = buf[cur-1]
	}
	probs := e.litProbs(e.pos, prev)
	if e.state < numLitStates {
		e.rc.literal(probs, uint32(buf[cur]), false, 0)
	} else {
		e.rc.literal(probs, uint32(buf[cur]), true, uint32(buf[cur-int(e.reps[0])]))
	}
	e.state = uint32(litNext[e.state])
	e.pos++
}

// encodeLen codes length l (>= matchMinLen).
func (e *encoder) encodeLen(lm *lenModel, l uint32, posState uint32) {
	l -= matchMinLen
	switch {
	case l < 8:
		e.rc.bit(&lm.choice, 0)
		e.rc.tree(lm.low[posState&15][:], 3, l)
	case l < 16:
		e.rc.bit(&lm.choice, 1)
		e.rc.bit(&lm.choice2, 0)
		e.rc.tree(lm.mid[posState&15][:], 3, l-8)
	default:
		e.rc.bit(&lm.choice, 1)
		e.rc.bit(&lm.choice2, 1)
		e.rc.tree(lm.high[:], 8, l-16)
	}
}

// posSlotOf returns the position slot of distance code d (distance - 1).
func posSlotOf(d uint32) uint32 {
	if d < 4 {
		return d
	}
	n := uint32(bits.Len32(d)) - 1
	return n<<1 | (d>>(n-1))&1
}

// encodeMatch codes a match with distance code dist (distance - 1) and
// length l; the new distance becomes rep0.
func (e *encoder) encodeMatch(dist, l uint32) {
	posState := uint32(e.pos) & e.pbMask
	e.rc.bit(&e.m.isMatch[e.state<<4|posState], 1)
	e.rc.bit(&e.m.isRep[e.state], 0)
	e.encodeLen(&e.m.matchLen, l, posState)
	lenState := min(l-matchMinLen, lenToPosStates-1)
	slot := posSlotOf(dist)
	e.rc.tree(e.m.posSlot[lenState][:], 6, slot)
	if slot >= 4 {
		footer := int(slot>>1 - 1)
		base := (2 | slot&1) << uint(footer)
		if slot < endPosModelIndex {
			e.rc.reverseTree(e.m.posSpec[base:], footer, dist-base)
		} else {
			e.rc.direct((dist-base)>>numAlignBits, footer-numAlignBits)
			e.rc.reverseTree(e.m.align[:], numAlignBits, dist&15)
		}
	}
	e.reps = [4]uint32{dist + 1, e.reps[0], e.reps[1], e.reps[2]}
	e.state = matchNext(e.state)
	e.pos += int64(l)
}

// encodeRep codes a match of length l with repeated distance rep (0..3);
// l == 1 with rep 0 is the short rep.
func (e *encoder) encodeRep(rep int, l uint32) {
	posState := uint32(e.pos) & e.pbMask
	s := e.state
	e.rc.bit(&e.m.isMatch[s<<4|posState], 1)
	e.rc.bit(&e.m.isRep[s], 1)
	if rep == 0 {
		e.rc.bit(&e.m.isRepG0[s], 0)
		if l == 1 {
			e.rc.bit(&e.m.isRep0Long[s<<4|posState], 0)
			e.state = shortRepNext(s)
			e.pos++
			return
		}
		e.rc.bit(&e.m.isRep0Long[s<<4|posState], 1)
	} else {
		e.rc.bit(&e.m.isRepG0[s], 1)
		d := e.reps[rep]
		if rep == 1 {
			e.rc.bit(&e.m.isRepG1[s], 0)
		} else {
			e.rc.bit(&e.m.isRepG1[s], 1)
			e.rc.bit(&e.m.isRepG2[s], uint32(rep-2))
			if rep == 3 {
				e.reps[3] = e.reps[2]
			}
			e.reps[2] = e.reps[1]
		}
		e.reps[1] = e.reps[0]
		e.reps[0] = d
	}
	e.encodeLen(&e.m.repLen, l, posState)
	e.state = repNext(s)
	e.pos += int64(l)
}

// encodeEndMarker codes the end-of-stream marker: a match with distance
// code 0xFFFFFFFF and length 2. It does not move the position.
func (e *encoder) encodeEndMarker() {
	posState := uint32(e.pos) & e.pbMask
	e.rc.bit(&e.m.isMatch[e.state<<4|posState], 1)
	e.rc.bit(&e.m.isRep[e.state], 0)
	e.encodeLen(&e.m.matchLen, matchMinLen, posState)
	e.rc.tree(e.m.posSlot[0][:], 6, 63)
	footer := 30
	base := uint32(3) << 30
	dist := uint32(0xFFFFFFFF)
	e.rc.direct((dist-base)>>numAlignBits, footer-numAlignBits)
	e.rc.reverseTree(e.m.align[:], numAlignBits, dist&15)
	e.state = matchNext(e.state)
}

// litMark is the parser's "literal" decision.
const litMark = ^uint32(0)

type runStatus uint8

const (
	runNeedInput runStatus = iota // look-ahead ran short; write more
	runFull                       // the chunk (or the output buffer) is full
	runDone                       // everything in the window is encoded (final)
)

// outFlush is how much output an LZMA Writer collects before writing.
const outFlush = 1 << 16

// open prepares e for a new stream with e.cfg; window is the size of the
// window to allocate (0: the caller borrows its data).
func (e *encoder) open(window int) {
	if e.m == nil {
		e.m = models.Get()
	}
	e.mf.reset(&e.cfg, window)
	e.resetState()
	if cap(e.rc.out) < 2*lzma2PackMax {
		e.rc.out = make([]byte, 0, 2*lzma2PackMax)
	}
	e.rc.reset()
	e.pos, e.ahead = 0, 0
	e.optCur, e.optEnd = 0, 0
	e.numPairs, e.numAvail, e.longestLen = 0, 0, 0
	for i := range e.opt {
		e.opt[i].price = infinityPrice
	}
	e.initPrices()
}

// close returns the pooled memory.
func (e *encoder) close() {
	e.mf.release()
	models.Put(e.m)
	e.m = nil
}

// run encodes symbols from the window until the look-ahead runs short
// (unless final), the chunk c is full (c == nil: the output buffer has
// outFlush bytes) or everything is encoded.
func (e *encoder) run(c *chunker) runStatus {
	mf := &e.mf
	for {
		if e.optCur == e.optEnd { // between parser runs: a place to stop
			if e.ahead == 0 && mf.avail() == 0 {
				if mf.final {
					return runDone
				}
				return runNeedInput
			}
			if !mf.final && mf.avail() < lookAhead {
				return runNeedInput
			}
			if c != nil {
				if c.full() {
					return runFull
				}
			} else if len(e.rc.out) >= outFlush {
				return runFull
			}
		}
		l, back := e.parse()
		cur := mf.cur - e.ahead
		switch {
		case back == litMark:
			e.encodeLiteral(cur)
		case back < 4:
			e.encodeRep(int(back), l)
			if l != 1 {
				e.pr.repLenCount--
			}
		default:
			e.encodeMatch(back-4, l)
			e.pr.matchCount++
		}
		e.ahead -= int(l)
		if e.ahead == 0 && !e.cfg.fast {
			e.updatePrices()
		}
	}
}

// parse returns the next decision: length and litMark, a rep index
// (0..3) or distance code + 4.
func (e *encoder) parse() (uint32, uint32) {
	if e.pos == 0 && e.ahead == 0 {
		e.readMatches() // the first byte is a literal
		return 1, litMark
	}
	var l int
	if e.cfg.fast {
		l = e.fastParse()
	} else {
		l = e.optParse()
	}
	return uint32(l), e.backRes
}

// readMatches runs the match finder at its position (one ahead of the
// encoder's afterwards) and returns the longest match length, extended
// past the fast bytes when it reached them.
func (e *encoder) readMatches() int {
	e.ahead++
	e.numAvail = e.mf.avail()
	n := e.mf.getMatches(e.matches[:])
	e.numPairs = n
	if n == 0 {
		return 0
	}
	l := int(e.matches[n-2])
	if l == e.cfg.fastBytes {
		avail := min(e.numAvail, matchMaxLen)
		buf := e.mf.buf
		p1 := e.mf.cur - 1
		p2 := p1 - int(e.matches[n-1]) - 1
		for l < avail && buf[p1+l] == buf[p2+l] {
			l++
		}
	}
	return l
}

// movePos skips n positions of the match finder (they get no matches).
func (e *encoder) movePos(n int) {
	if n > 0 {
		e.ahead += n
		e.mf.skip(n)
	}
}
