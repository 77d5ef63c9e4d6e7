package lzma

// changePair reports whether a match at bigDist is so much farther than
// one at smallDist that one byte of length is not worth it.
func changePair(smallDist, bigDist uint32) bool { return bigDist>>7 > smallDist }

// fastParse is the greedy parser with one position of lazy look-ahead of
// 7-Zip's fast mode (LzmaEnc.c GetOptimumFast). It returns the length of
// the next symbol and leaves its kind in e.backRes.
func (e *encoder) fastParse() int {
	mainLen, numPairs := e.nextMatches()
	numAvail := e.numAvail
	e.backRes = litMark
	if numAvail < 2 {
		return 1
	}
	numAvail = min(numAvail, matchMaxLen)
	buf := e.mf.buf
	data := e.mf.cur - 1
	repLen, repIndex := 0, 0
	fb := e.cfg.fastBytes
	for i := range 4 {
		d2 := data - int(e.reps[i])
		if buf[data] != buf[d2] || buf[data+1] != buf[d2+1] {
			continue
		}
		l := 2
		for l < numAvail && buf[data+l] == buf[d2+l] {
			l++
		}
		if l >= fb {
			e.backRes = uint32(i)
			e.movePos(l - 1)
			return l
		}
		if l > repLen {
			repIndex, repLen = i, l
		}
	}
	m := e.matches[:]
	if mainLen >= fb {
		e.backRes = m[numPairs-1] + 4
		e.movePos(mainLen - 1)
		return mainLen
	}
	var mainDist uint32
	if mainLen >= 2 {
		mainDist = m[numPairs-1]
		for numPairs > 2 {
			if mainLen != int(m[numPairs-4])+1 {
				break
			}
			d2 := m[numPairs-3]
			if !changePair(d2, mainDist) {
				break
			}
			numPairs -= 2
			mainLen--
			mainDist = d2
		}
		if mainLen == 2 && mainDist >= 0x80 {
			mainLen = 1
		}
	}
	if repLen >= 2 && (repLen+1 >= mainLen ||
		(repLen+2 >= mainLen && mainDist >= 1<<9) ||
		(repLen+3 >= mainLen && mainDist >= 1<<15)) {
		e.backRes = uint32(repIndex)
		e.movePos(repLen - 1)
		return repLen
	}
	if mainLen < 2 || numAvail <= 2 {
		return 1
	}
	len1 := e.readMatches()
	e.longestLen = len1
	if len1 >= 2 {
		newDist := e.matches[e.numPairs-1]
		if (len1 >= mainLen && newDist < mainDist) ||
			(len1 == mainLen+1 && !changePair(mainDist, newDist)) ||
			len1 > mainLen+1 ||
			(len1+1 >= mainLen && mainLen >= 3 && changePair(newDist, mainDist)) {
			return 1
		}
	}
	data = e.mf.cur - 1
	for i := range 4 {
		d2 := data - int(e.reps[i])
		if buf[data] != buf[d2] || buf[data+1] != buf[d2+1] {
			continue
		}
		limit := mainLen - 1
		for l := 2; ; l++ {
			if l >= limit {
				return 1
			}
			if buf[data+l] != buf[d2+l] {
				break
			}
		}
	}
	e.backRes = mainDist + 4
	if mainLen != 2 {
		e.movePos(mainLen - 2)
	}
	return mainLen
}

// nextMatches returns the longest match length and the match-pair count
// at the current position: found now, or kept from the look-ahead of the
// previous step.
func (e *encoder) nextMatches() (mainLen, numPairs int) {
	if e.ahead == 0 {
		mainLen = e.readMatches()
		return mainLen, e.numPairs
	}
	return e.longestLen, e.numPairs
}
