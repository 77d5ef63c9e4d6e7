package lzma

// The optimal parser of 7-Zip's normal mode (LzmaEnc.c GetOptimum): from
// the current position it prices every literal, match, rep match and
// short rep, and the combinations match+literal+rep0 and rep+literal+rep0,
// over up to kNumOpts positions, keeping for each position the cheapest
// way to reach it; Backward then turns the cheapest path into symbols.

// optimal is one position of the parser's price graph.
type optimal struct {
	price uint32
	state uint32
	len   uint32    // length of the symbol that reaches this position
	dist  uint32    // litMark, a rep index (0..3) or distance code + 4
	extra uint32    // >0: the symbol is preceded by a literal (1) or by a rep match of extra-1 bytes and a literal
	reps  [4]uint32 // the rep distances after this position
}

// Fixed states after the two-symbol combinations.
const (
	stateLitAfterMatch = 4
	stateLitAfterRep   = 5
	stateMatchAfterLit = 7
	stateRepAfterLit   = 8
)

func (e *encoder) litProbs32(pos uint32, prev byte) []uint16 {
	i := ((pos & e.lpMask) << e.lc) + uint32(prev)>>(8-e.lc)
	return e.m.lit[litSize*i : litSize*i+litSize]
}

// pureRepPrice is the price of choosing rep index rep (not the length).
func (e *encoder) pureRepPrice(rep int, state, posState uint32) uint32 {
	m := e.m
	if rep == 0 {
		return price0(m.isRepG0[state]) + price1(m.isRep0Long[state<<4|posState])
	}
	p := price1(m.isRepG0[state])
	if rep == 1 {
		return p + price0(m.isRepG1[state])
	}
	return p + price1(m.isRepG1[state]) + priceBit(m.isRepG2[state], uint32(rep-2))
}

func (e *encoder) shortRepPrice(state, posState uint32) uint32 {
	return price0(e.m.isRepG0[state]) + price0(e.m.isRep0Long[state<<4|posState])
}

// rep0Price is the price of the flags of a rep0 match (isMatch..isRep0Long).
func (e *encoder) rep0Price(state, posState uint32) uint32 {
	m := e.m
	return price1(m.isMatch[state<<4|posState]) + price1(m.isRep0Long[state<<4|posState]) +
		price1(m.isRep[state]) + price0(m.isRepG0[state])
}

// matchDistPrice is the price of distance code dist for a match of
// length l (the length itself excluded).
func (e *encoder) matchDistPrice(dist uint32, l int) uint32 {
	lps := min(l-2, kNumLenToPosStates-1)
	if dist < kNumFullDistances {
		return e.pr.dist[lps][dist]
	}
	return e.pr.posSlot[lps][posSlotOf(dist)] + e.pr.align[dist&15]
}

// optParse returns the next symbol of the optimal parse, running the
// parser when the previous path is used up.
func (e *encoder) optParse() int {
	if e.optCur != e.optEnd {
		o := &e.opt[e.optCur]
		e.backRes = o.dist
		e.optCur++
		return int(o.len)
	}
	return e.optimum(uint32(e.pos))
}

// backward turns the cheapest path to cur into e.opt[optCur:optEnd] and
// returns its first symbol.
func (e *encoder) backward(cur int) int {
	wr := cur + 1
	e.optEnd = wr
	opt := &e.opt
	for {
		dist := opt[cur].dist
		l := int(opt[cur].len)
		extra := int(opt[cur].extra)
		cur -= l
		if extra != 0 {
			wr--
			opt[wr].len = uint32(l)
			cur -= extra
			l = extra
			if extra == 1 {
				opt[wr].dist = dist
				dist = litMark
			} else {
				opt[wr].dist = 0
				l--
				wr--
				opt[wr].dist = litMark
				opt[wr].len = 1
			}
		}
		if cur == 0 {
			e.backRes = dist
			e.optCur = wr
			return l
		}
		wr--
		opt[wr].dist = dist
		opt[wr].len = uint32(l)
	}
}

// optimum runs the parser at the encoder's position.
func (e *encoder) optimum(position uint32) int {
	e.optCur, e.optEnd = 0, 0
	mainLen, numPairs := e.nextMatches()
	numAvail := e.numAvail
	if numAvail < 2 {
		e.backRes = litMark
		return 1
	}
	numAvail = min(numAvail, matchMaxLen)
	buf := e.mf.buf
	data := e.mf.cur - 1
	m := e.m
	fb := e.cfg.fastBytes

	var reps [4]uint32
	var repLens [4]int
	repMax := 0
	for i := range 4 {
		reps[i] = e.reps[i]
		d2 := data - int(reps[i])
		if buf[data] != buf[d2] || buf[data+1] != buf[d2+1] {
			repLens[i] = 0
			continue
		}
		l := 2
		for l < numAvail && buf[data+l] == buf[d2+l] {
			l++
		}
		repLens[i] = l
		if l > repLens[repMax] {
			repMax = i
		}
		if l == matchMaxLen {
			break
		}
	}
	if repLens[repMax] >= fb {
		e.backRes = uint32(repMax)
		l := repLens[repMax]
		e.movePos(l - 1)
		return l
	}
	matches := e.matches[:]
	if mainLen >= fb {
		e.backRes = matches[numPairs-1] + 4
		e.movePos(mainLen - 1)
		return mainLen
	}
	curByte := buf[data]
	matchByte := buf[data-int(reps[0])]
	last := max(repLens[repMax], mainLen)
	if last < 2 && curByte != matchByte {
		e.backRes = litMark
		return 1
	}
	opt := &e.opt
	state := e.state
	opt[0].state = state
	posState := position & e.pbMask
	{
		probs := e.litProbs32(position, buf[data-1])
		p := price0(m.isMatch[state<<4|posState])
		if state >= numLitStates {
			p += litMatchedPrice(probs, uint32(curByte), uint32(matchByte))
		} else {
			p += litPrice(probs, uint32(curByte))
		}
		opt[1].price = p
		opt[1].dist, opt[1].extra = litMark, 0
	}
	matchPrice := price1(m.isMatch[state<<4|posState])
	repMatchPrice := matchPrice + price1(m.isRep[state])
	if matchByte == curByte && repLens[0] == 0 {
		sp := repMatchPrice + e.shortRepPrice(state, posState)
		if sp < opt[1].price {
			opt[1].price = sp
			opt[1].dist, opt[1].extra = 0, 0
		}
		if last < 2 {
			e.backRes = opt[1].dist
			return 1
		}
	}
	opt[1].len = 1
	opt[0].reps = reps

	for i := range 4 {
		repLen := repLens[i]
		if repLen < 2 {
			continue
		}
		p := repMatchPrice + e.pureRepPrice(i, state, posState)
		for ; repLen >= 2; repLen-- {
			p2 := p + e.pr.repLenPrices[posState][repLen-2]
			o := &opt[repLen]
			if p2 < o.price {
				o.price, o.len, o.dist, o.extra = p2, uint32(repLen), uint32(i), 0
			}
		}
	}

	if l := repLens[0] + 1; l <= mainLen {
		offs := 0
		normalMatchPrice := matchPrice + price0(m.isRep[state])
		if l < 2 {
			l = 2
		} else {
			for l > int(matches[offs]) {
				offs += 2
			}
		}
		for ; ; l++ {
			dist := matches[offs+1]
			p := normalMatchPrice + e.pr.lenPrices[posState][l-2] + e.matchDistPrice(dist, l)
			o := &opt[l]
			if p < o.price {
				o.price, o.len, o.dist, o.extra = p, uint32(l), dist+4, 0
			}
			if l == int(matches[offs]) {
				offs += 2
				if offs == numPairs {
					break
				}
			}
		}
	}

	cur := 0
	for {
		cur++
		if cur == last {
			break
		}
		if cur >= kNumOpts-64 {
			best := cur
			p := opt[cur].price
			for j := cur + 1; j <= last; j++ {
				if p2 := opt[j].price; p >= p2 {
					p, best = p2, j
				}
			}
			if d := best - cur; d != 0 {
				e.movePos(d)
			}
			cur = best
			break
		}
		newLen := e.readMatches()
		numPairs = e.numPairs
		if newLen >= fb {
			e.longestLen = newLen
			break
		}
		curOpt := &opt[cur]
		position++
		prev := cur - int(curOpt.len)
		var st uint32
		if curOpt.len == 1 {
			st = opt[prev].state
			if curOpt.dist == 0 {
				st = shortRepNext(st)
			} else {
				st = uint32(litNext[st])
			}
		} else {
			dist := curOpt.dist
			if curOpt.extra != 0 {
				prev -= int(curOpt.extra)
				st = stateRepAfterLit
				if curOpt.extra == 1 && dist >= 4 {
					st = stateMatchAfterLit
				}
			} else {
				st = opt[prev].state
				if dist < 4 {
					st = repNext(st)
				} else {
					st = matchNext(st)
				}
			}
			po := &opt[prev]
			b0 := po.reps[0]
			if dist < 4 {
				switch dist {
				case 0:
					reps = po.reps
				case 1:
					reps = [4]uint32{po.reps[1], b0, po.reps[2], po.reps[3]}
				default:
					reps = [4]uint32{po.reps[dist], b0, po.reps[1], po.reps[dist^1]}
				}
			} else {
				reps = [4]uint32{dist - 4 + 1, b0, po.reps[1], po.reps[2]}
			}
		}
		curOpt.state = st
		curOpt.reps = reps

		data = e.mf.cur - 1
		curByte = buf[data]
		matchByte = buf[data-int(reps[0])]
		posState = position & e.pbMask

		curPrice := curOpt.price
		isM := m.isMatch[st<<4|posState]
		matchPrice = curPrice + price1(isM)
		litP := curPrice + price0(isM)

		nextOpt := &opt[cur+1]
		nextIsLit := false
		if (nextOpt.price < infinityPrice && matchByte == curByte) || litP > nextOpt.price {
			litP = 0
		} else {
			probs := e.litProbs32(position, buf[data-1])
			if st >= numLitStates {
				litP += litMatchedPrice(probs, uint32(curByte), uint32(matchByte))
			} else {
				litP += litPrice(probs, uint32(curByte))
			}
			if litP < nextOpt.price {
				nextOpt.price, nextOpt.len, nextOpt.dist, nextOpt.extra = litP, 1, litMark, 0
				nextIsLit = true
			}
		}
		repMatchPrice = matchPrice + price1(m.isRep[st])
		numAvailFull := min(e.numAvail, kNumOpts-1-cur)

		if st < numLitStates && matchByte == curByte && repMatchPrice < nextOpt.price &&
			(nextOpt.len < 2 || nextOpt.dist != 0) {
			sp := repMatchPrice + e.shortRepPrice(st, posState)
			if sp < nextOpt.price {
				nextOpt.price, nextOpt.len, nextOpt.dist, nextOpt.extra = sp, 1, 0, 0
				nextIsLit = false
			}
		}
		if numAvailFull < 2 {
			continue
		}
		numAvail = min(numAvailFull, fb)

		// literal, then rep0
		if !nextIsLit && litP != 0 && matchByte != curByte && numAvailFull > 2 {
			d2 := data - int(reps[0])
			if buf[data+1] == buf[d2+1] && buf[data+2] == buf[d2+2] {
				limit := min(fb+1, numAvailFull)
				l := 3
				for l < limit && buf[data+l] == buf[d2+l] {
					l++
				}
				st2 := uint32(litNext[st])
				ps2 := (position + 1) & e.pbMask
				p := litP + e.rep0Price(st2, ps2)
				offset := cur + l
				last = max(last, offset)
				l--
				p2 := p + e.pr.repLenPrices[ps2][l-2]
				o := &opt[offset]
				if p2 < o.price {
					o.price, o.len, o.dist, o.extra = p2, uint32(l), 0, 1
				}
			}
		}

		startLen := 2
		for ri := range 4 {
			d2 := data - int(reps[ri])
			if buf[data] != buf[d2] || buf[data+1] != buf[d2+1] {
				continue
			}
			l := 2
			for l < numAvail && buf[data+l] == buf[d2+l] {
				l++
			}
			last = max(last, cur+l)
			p := repMatchPrice + e.pureRepPrice(ri, st, posState)
			for l2 := l; l2 >= 2; l2-- {
				p2 := p + e.pr.repLenPrices[posState][l2-2]
				o := &opt[cur+l2]
				if p2 < o.price {
					o.price, o.len, o.dist, o.extra = p2, uint32(l2), uint32(ri), 0
				}
			}
			if ri == 0 {
				startLen = l + 1
			}
			// rep, literal, rep0
			l2 := l + 1
			limit := min(l2+fb, numAvailFull)
			l2 += 2
			if l2 <= limit && buf[data+l2-2] == buf[d2+l2-2] && buf[data+l2-1] == buf[d2+l2-1] {
				st2 := repNext(st)
				ps2 := (position + uint32(l)) & e.pbMask
				p += e.pr.repLenPrices[posState][l-2] + price0(m.isMatch[st2<<4|ps2]) +
					litMatchedPrice(e.litProbs32(position+uint32(l), buf[data+l-1]), uint32(buf[data+l]), uint32(buf[d2+l]))
				st2 = stateLitAfterRep
				ps2 = (ps2 + 1) & e.pbMask
				p += e.rep0Price(st2, ps2)
				for l2 < limit && buf[data+l2] == buf[d2+l2] {
					l2++
				}
				l2 -= l
				offset := cur + l + l2
				last = max(last, offset)
				l2--
				p2 := p + e.pr.repLenPrices[ps2][l2-2]
				o := &opt[offset]
				if p2 < o.price {
					o.price, o.len, o.extra, o.dist = p2, uint32(l2), uint32(l+1), uint32(ri)
				}
			}
		}

		if newLen > numAvail {
			newLen = numAvail
			numPairs = 0
			for newLen > int(matches[numPairs]) {
				numPairs += 2
			}
			matches[numPairs] = uint32(newLen)
			numPairs += 2
		}
		if newLen >= startLen {
			normalMatchPrice := matchPrice + price0(m.isRep[st])
			last = max(last, cur+newLen)
			offs := 0
			for startLen > int(matches[offs]) {
				offs += 2
			}
			dist := matches[offs+1]
			for l := startLen; ; l++ {
				p := normalMatchPrice + e.pr.lenPrices[posState][l-2] + e.matchDistPrice(dist, l)
				o := &opt[cur+l]
				if p < o.price {
					o.price, o.len, o.dist, o.extra = p, uint32(l), dist+4, 0
				}
				if l == int(matches[offs]) {
					// match, literal, rep0 (its tail repeats the rep case's
					// above on purpose: this is the optimal parser's inner
					// loop, not folded without a BenchmarkEncode A/B)
					d2 := data - int(dist) - 1
					l2 := l + 1
					limit := min(l2+fb, numAvailFull)
					l2 += 2
					if l2 <= limit && buf[data+l2-2] == buf[d2+l2-2] && buf[data+l2-1] == buf[d2+l2-1] {
						for l2 < limit && buf[data+l2] == buf[d2+l2] {
							l2++
						}
						l2 -= l
						st2 := matchNext(st)
						ps2 := (position + uint32(l)) & e.pbMask
						p += price0(m.isMatch[st2<<4|ps2]) +
							litMatchedPrice(e.litProbs32(position+uint32(l), buf[data+l-1]), uint32(buf[data+l]), uint32(buf[d2+l]))
						st2 = stateLitAfterMatch
						ps2 = (ps2 + 1) & e.pbMask
						p += e.rep0Price(st2, ps2)
						offset := cur + l + l2
						last = max(last, offset)
						l2--
						p2 := p + e.pr.repLenPrices[ps2][l2-2]
						o := &opt[offset]
						if p2 < o.price {
							o.price, o.len, o.extra, o.dist = p2, uint32(l2), uint32(l+1), dist+4
						}
					}
					offs += 2
					if offs == numPairs {
						break
					}
					dist = matches[offs+1]
				}
			}
		}
	}
	for ; last > 0; last-- {
		opt[last].price = infinityPrice
	}
	return e.backward(cur)
}
