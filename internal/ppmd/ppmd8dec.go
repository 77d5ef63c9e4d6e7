package ppmd

import "encoding/binary"

// decodeSymbol decodes one symbol of a PPMd8 stream with the carry-less
// range decoder rc (Ppmd8Dec.c). It returns the byte, symEnd or symError;
// read errors are left in rc.err.
func (m *model8) decodeSymbol(rc *rangeDecoder) int {
	mem := m.mem
	mc := m.minContext
	ctx := ctxAt(mem, mc)
	// Deliberate copy of Model.decodeSymbol's first-context search: the
	// context records differ (NumStats-1 in a byte here), and sharing it
	// would put a call and a branch in the per-symbol path.
	if ns := uint32(ctx[0]); ns != 0 {
		summFreq := uint32(ctx[2]) | uint32(ctx[3])<<8
		s := binary.LittleEndian.Uint32(ctx[4:])
		st := statesAt(mem, s, ns+1)
		if summFreq > rc.rng || summFreq == 0 {
			return symError
		}
		count := rc.threshold(summFreq)
		hiCnt := count
		f := uint32(st[1])
		if count < f {
			rc.decode(0, f)
			rc.normRAR()
			m.foundState = s
			sym := st[0]
			m.update1_0()
			return int(sym)
		}
		count -= f
		m.prevSuccess = 0
		for i := stateSize; i < len(st); i += stateSize {
			f = uint32(st[i+1])
			if count < f {
				rc.decode(hiCnt-count, f)
				rc.normRAR()
				m.foundState = s + uint32(i)
				sym := st[i]
				m.update1()
				return int(sym)
			}
			count -= f
		}
		if hiCnt >= summFreq {
			return symError
		}
		hiCnt -= count
		rc.decode(hiCnt, summFreq-hiCnt)
		m.mask = noMask
		for i := 0; i < len(st); i += stateSize {
			m.mask[st[i]] = 0
		}
	} else {
		s := mc + 2
		f := uint32(ctx[3])
		row := ns2Indx8[(f-1)&0xFF]
		col := uint32(ns2BSIndx[mem[m.suffix(mc)]]) + m.prevSuccess + uint32(ctx[1]) +
			uint32((m.runLength>>26)&0x20)
		prob := &m.binSumm[row][col&63]
		pr := uint32(*prob)
		size0 := (rc.rng >> 14) * pr
		pr -= (pr + 1<<(periodBits-2)) >> periodBits // PPMD_UPDATE_PROB_1
		if rc.code < size0 {
			*prob = uint16(pr + 1<<intBits)
			rc.rng = size0
			rc.normRAR()
			sym := ctx[2]
			succ := binary.LittleEndian.Uint32(ctx[4:])
			m.foundState = s
			m.prevSuccess = 1
			m.runLength++
			if f < 196 {
				ctx[3] = byte(f + 1)
			}
			if m.orderFall == 0 && succ >= m.unitsStart {
				m.minContext, m.maxContext = succ, succ
			} else {
				m.updateModel()
			}
			return int(sym)
		}
		*prob = uint16(pr)
		m.initEsc = uint32(expEscape[pr>>10])
		rc.low += size0
		rc.code -= size0
		rc.rng = (rc.rng &^ (binScale - 1)) - size0
		m.mask = noMask
		m.mask[ctx[2]] = 0
		m.prevSuccess = 0
	}

	for {
		rc.normRAR()
		mc := m.minContext
		numMasked := uint32(mem[mc])
		for {
			m.orderFall++
			mc = m.suffix(mc)
			if mc == 0 {
				return symEnd
			}
			if uint32(mem[mc]) != numMasked {
				break
			}
		}
		ctx := ctxAt(mem, mc)
		s := binary.LittleEndian.Uint32(ctx[4:])
		st := statesAt(mem, s, uint32(ctx[0])+1)
		m.minContext = mc
		sp, escFreq := m.makeEscFreq(numMasked)
		var nm uint32 // PPMd8 does not count its masked symbols
		i := rc.maskedSymbol(st, &m.mask, sp, escFreq, &nm)
		if i < 0 {
			if i == symError {
				return symError
			}
			continue // escaped: st is masked now
		}
		m.foundState = s + uint32(i)
		sym := st[i]
		m.update2()
		return int(sym)
	}
}
