package ppmd

// PPMd8 model update (Ppmd8.c: Refresh, CutOff, RestoreModel,
// CreateSuccessors, ReduceOrder, UpdateModel, Rescale, MakeEscFreq,
// Update1, Update1_0, Update2). The decoded output depends on every step,
// so the order of operations follows the reference exactly.

// refresh shrinks the state vector of ctx (oldNU units) to fit its
// states and divides the frequencies by 2^scale.
func (m *model8) refresh(ctx, oldNU, scale uint32) {
	mem := m.mem
	i := m.numStats(ctx)
	s := m.shrinkUnits(m.stats(ctx), oldNU, (i+2)>>1)
	m.setStats(ctx, s)
	scale |= b2u(m.summFreq(ctx) >= 1<<15)
	flags := uint32(mem[s]) + 0xC0
	freq := uint32(mem[s+1])
	escFreq := m.summFreq(ctx) - freq
	freq = (freq + scale) >> scale
	sumFreq := freq
	mem[s+1] = byte(freq)
	for ; i > 0; i-- {
		s += stateSize
		freq := uint32(mem[s+1])
		escFreq -= freq
		freq = (freq + scale) >> scale
		sumFreq += freq
		mem[s+1] = byte(freq)
		flags |= uint32(mem[s]) + 0xC0
	}
	m.setSummFreq(ctx, sumFreq+(escFreq+scale)>>scale)
	mem[ctx+1] = byte(m.flags(ctx)&(flagPrevHigh8+flagRescaled8*scale) + (flags>>5)&8)
}

// cutOff prunes the subtree of ctx (at the given order): successors above
// maxOrder and raw successors go, contexts left without successors are
// freed. It returns ctx, or 0 when ctx itself was freed.
func (m *model8) cutOff(ctx, order uint32) uint32 {
	if m.cutBudget > 0 {
		if m.cutLeft--; m.cutLeft < 0 {
			panic("ppmd8: cut-off of a restored model runs past its budget")
		}
	}
	mem := m.mem
	ns := int(m.numStats(ctx))
	if ns == 0 {
		s := ctx + 2
		succ := m.successor(s)
		if succ >= m.unitsStart {
			if order < m.maxOrder {
				succ = m.cutOff(succ, order+1)
			} else {
				succ = 0
			}
			m.setSuccessor(s, succ)
			if succ != 0 || order <= 9 {
				return ctx
			}
		}
		m.specialFreeUnit(ctx)
		return 0
	}

	nu := uint32(ns+2) >> 1
	indx := u2i(nu)
	stats := m.stats(ctx)
	if stats-m.unitsStart <= 1<<14 && stats <= m.freeList[indx] {
		// Move the state vector up, away from the text area.
		ptr := m.removeNode(indx)
		m.setStats(ctx, ptr)
		m.copyUnits(ptr, stats, nu)
		if stats != m.unitsStart {
			m.insertNode(stats, indx)
		} else {
			m.unitsStart += u2b(i2u(indx))
		}
		stats = ptr
	}

	for k := ns; k >= 0; k-- {
		s := stats + uint32(k)*stateSize
		succ := m.successor(s)
		if succ < m.unitsStart {
			s2 := stats + uint32(ns)*stateSize
			ns--
			if order != 0 {
				if s != s2 {
					*stateAt(mem, s) = *stateAt(mem, s2)
				}
			} else {
				m.swapStates(s, s2)
				m.setSuccessor(s2, 0)
			}
		} else if order < m.maxOrder {
			m.setSuccessor(s, m.cutOff(succ, order+1))
		} else {
			m.setSuccessor(s, 0)
		}
	}

	if ns != int(m.numStats(ctx)) && order != 0 {
		if ns < 0 {
			m.freeUnits(stats, nu)
			m.specialFreeUnit(ctx)
			return 0
		}
		mem[ctx] = byte(ns)
		if ns == 0 {
			m.toOneState(ctx, stats, (uint32(mem[stats+1])+11)>>3)
			m.freeUnits(stats, nu)
		} else {
			m.refresh(ctx, nu, b2u(m.summFreq(ctx) > 16*uint32(ns)))
		}
	}
	return ctx
}

func (m *model8) usedMemory() uint32 {
	var v uint32
	for i := range m.stamps {
		v += m.stamps[i] * i2u(uint32(i))
	}
	return m.size - (m.hiUnit - m.loUnit) - (m.unitsStart - m.text) - u2b(v)
}

// restoreModel runs when the arena is full: it undoes the symbols added
// to [maxContext, ctxError), then restarts or cuts the tree off.
func (m *model8) restoreModel(ctxError uint32) {
	mem := m.mem
	m.text = m.alignOffset
	c := m.maxContext
	for ; c != ctxError && c != 0; c = m.suffix(c) {
		ns := uint32(byte(m.numStats(c) - 1))
		mem[c] = byte(ns)
		if ns == 0 {
			s := m.stats(c)
			m.toOneState(c, s, (uint32(mem[s+1])+11)>>3)
			m.specialFreeUnit(s)
		} else {
			m.refresh(c, (ns+3)>>1, 0)
		}
	}
	for ; c != m.minContext && c != 0; c = m.suffix(c) {
		if ns := m.numStats(c); ns == 0 {
			mem[c+3] = byte((uint32(mem[c+3]) + 1) >> 1)
		} else {
			sf := (m.summFreq(c) + 4) & 0xFFFF
			m.setSummFreq(c, sf)
			if sf > 128+4*ns {
				m.refresh(c, (ns+2)>>1, 1)
			}
		}
	}

	if m.restoreMethod == RestoreRestart || m.usedMemory() < m.size>>1 {
		m.restart()
	} else {
		m.cutOffs++
		m.cutLeft = m.cutBudget
		for m.suffix(m.maxContext) != 0 {
			m.maxContext = m.suffix(m.maxContext)
		}
		for {
			m.cutOff(m.maxContext, 0)
			m.expandTextArea()
			if m.usedMemory() <= 3*(m.size>>2) {
				break
			}
		}
		m.glueCount = 0
		m.orderFall = m.maxOrder
	}
	m.minContext = m.maxContext
}

// createSuccessors makes context records for the raw successor of
// foundState along the suffix chain of c (s1, when non-zero, is the state
// already found in the first suffix). It returns the new context or 0
// when the arena is full.
func (m *model8) createSuccessors(skip bool, s1, c uint32) uint32 {
	mem := m.mem
	upBranch := m.successor(m.foundState)
	fsSym := mem[m.foundState]
	ps := &m.ps
	numPs := 0
	if !skip {
		ps[0] = m.foundState
		numPs = 1
	}
	for m.suffix(c) != 0 {
		c = m.suffix(c)
		var s uint32
		if s1 != 0 {
			s, s1 = s1, 0
		} else if m.numStats(c) != 0 {
			s = m.stateOf(m.stats(c), m.numStats(c)+1, fsSym)
			if mem[s+1] < maxFreq-9 {
				mem[s+1]++
				m.setSummFreq(c, m.summFreq(c)+1)
			}
		} else {
			s = c + 2
			if m.numStats(m.suffix(c)) == 0 && mem[s+1] < 24 {
				mem[s+1]++
			}
		}
		succ := m.successor(s)
		if succ != upBranch {
			c = succ
			if numPs == 0 {
				return c
			}
			break
		}
		if numPs >= len(ps) { // cannot happen: the chain is at most maxOrder long
			return 0
		}
		ps[numPs] = s
		numPs++
	}

	newSym := mem[upBranch]
	upBranch++
	flags := hiBits4(uint32(fsSym)) + hiBits3(uint32(newSym))
	var newFreq uint32
	if m.numStats(c) == 0 {
		newFreq = uint32(mem[c+3])
	} else {
		s := m.stateOf(m.stats(c), m.numStats(c)+1, newSym)
		cf := uint32(mem[s+1]) - 1
		s0 := m.summFreq(c) - m.numStats(c) - cf
		if 2*cf <= s0 {
			newFreq = 1 + b2u(5*cf > s0)
		} else {
			if s0 == 0 { // impossible in a consistent model
				s0 = 1
			}
			newFreq = 1 + (cf+2*s0-3)/s0
		}
	}

	for numPs != 0 {
		c1 := m.allocContext()
		if c1 == 0 {
			return 0
		}
		mem[c1] = 0
		mem[c1+1] = byte(flags)
		mem[c1+2] = newSym
		mem[c1+3] = byte(newFreq)
		m.setSuccessor(c1+2, upBranch)
		m.put32(c1+8, c)
		numPs--
		m.setSuccessor(ps[numPs], c1)
		c = c1
	}
	return c
}

// reduceOrder handles a null successor of foundState: it points the
// states along the suffix chain at the text and returns the context to
// continue from, or 0.
func (m *model8) reduceOrder(s1, c uint32) uint32 {
	mem := m.mem
	c1 := c
	upBranch := m.text
	fsSym := mem[m.foundState]
	m.setSuccessor(m.foundState, upBranch)
	m.orderFall++
	var s uint32
	for {
		if s1 != 0 {
			c = m.suffix(c)
			s, s1 = s1, 0
		} else {
			if m.suffix(c) == 0 {
				return c
			}
			c = m.suffix(c)
			if m.numStats(c) != 0 {
				s = m.stateOf(m.stats(c), m.numStats(c)+1, fsSym)
				if mem[s+1] < maxFreq-9 {
					mem[s+1] += 2
					m.setSummFreq(c, m.summFreq(c)+2)
				}
			} else {
				s = c + 2
				if mem[s+1] < 32 {
					mem[s+1]++
				}
			}
		}
		if m.successor(s) != 0 {
			break
		}
		m.setSuccessor(s, upBranch)
		m.orderFall++
	}

	if m.successor(s) <= upBranch {
		s2 := m.foundState
		m.foundState = s
		succ := m.createSuccessors(false, 0, c)
		m.setSuccessor(s, succ)
		m.foundState = s2
	}
	succ := m.successor(s)
	if m.orderFall == 1 && c1 == m.maxContext {
		m.setSuccessor(m.foundState, succ)
		m.text--
	}
	return succ
}

// updateModel adds the symbol just coded (foundState) to the contexts
// from maxContext down to minContext and moves to the next context.
func (m *model8) updateModel() {
	mem := m.mem
	fs := m.foundState
	minSuccessor := m.successor(fs)
	fFreq := uint32(mem[fs+1])
	fSymbol := mem[fs]
	var s uint32
	if fFreq < maxFreq/4 && m.suffix(m.minContext) != 0 {
		c := m.suffix(m.minContext)
		if m.numStats(c) == 0 {
			s = c + 2
			if mem[s+1] < 32 {
				mem[s+1]++
			}
		} else {
			s = m.stats(c)
			if mem[s] != fSymbol {
				s = m.stateOf(s, m.numStats(c)+1, fSymbol)
				if mem[s+1] >= mem[s-stateSize+1] {
					m.swapStates(s, s-stateSize)
					s -= stateSize
				}
			}
			if mem[s+1] < maxFreq-9 {
				mem[s+1] += 2
				m.setSummFreq(c, m.summFreq(c)+2)
			}
		}
	}

	c := m.maxContext
	if m.orderFall == 0 && minSuccessor != 0 {
		cs := m.createSuccessors(true, s, m.minContext)
		if cs == 0 {
			m.setSuccessor(fs, 0)
			m.restoreModel(c)
			return
		}
		m.setSuccessor(fs, cs)
		m.minContext, m.maxContext = cs, cs
		return
	}

	mem[m.text] = fSymbol
	m.text++
	if m.text >= m.unitsStart {
		m.restoreModel(c)
		return
	}
	maxSuccessor := m.text

	if minSuccessor == 0 {
		cs := m.reduceOrder(s, m.minContext)
		if cs == 0 {
			m.restoreModel(c)
			return
		}
		minSuccessor = cs
	} else if minSuccessor < m.unitsStart {
		cs := m.createSuccessors(false, s, m.minContext)
		if cs == 0 {
			m.restoreModel(c)
			return
		}
		minSuccessor = cs
	}

	m.orderFall--
	if m.orderFall == 0 {
		maxSuccessor = minSuccessor
		if m.maxContext != m.minContext {
			m.text--
		}
	}

	flag := byte(hiBits3(uint32(fSymbol)))
	ns := m.numStats(m.minContext)
	s0 := m.summFreq(m.minContext) - ns - fFreq

	for ; c != m.minContext; c = m.suffix(c) {
		ns1 := m.numStats(c)
		var sum uint32
		if ns1 != 0 {
			if ns1&1 != 0 {
				// The state vector is full: grow it by one unit.
				oldNU := (ns1 + 1) >> 1
				i := u2i(oldNU)
				if i != u2i(oldNU+1) {
					ptr := m.allocUnits(i + 1)
					if ptr == 0 {
						m.restoreModel(c)
						return
					}
					old := m.stats(c)
					m.copyUnits(ptr, old, oldNU)
					m.insertNode(old, i)
					m.setStats(c, ptr)
				}
			}
			sum = m.summFreq(c) + b2u(3*ns1+1 < ns)
		} else {
			s := m.allocUnits(0)
			if s == 0 {
				m.restoreModel(c)
				return
			}
			freq := uint32(mem[c+3])
			mem[s] = mem[c+2]
			put32(mem, s+2, get32(mem, c+4))
			m.setStats(c, s)
			if freq < maxFreq/4-1 {
				freq <<= 1
			} else {
				freq = maxFreq - 4
			}
			mem[s+1] = byte(freq)
			sum = freq + m.initEsc + b2u(ns > 2)
		}

		s := m.stats(c) + (ns1+1)*stateSize
		cf := 2 * (sum + 6) * fFreq
		sf := s0 + sum
		mem[s] = fSymbol
		mem[c] = byte(ns1 + 1)
		m.setSuccessor(s, maxSuccessor)
		mem[c+1] |= flag
		if cf < 6*sf {
			cf = 1 + b2u(cf > sf) + b2u(cf >= 4*sf)
			sum += 4
		} else {
			cf = 4 + b2u(cf > 9*sf) + b2u(cf > 12*sf) + b2u(cf > 15*sf)
			sum += cf
		}
		m.setSummFreq(c, sum)
		mem[s+1] = byte(cf)
	}
	m.minContext, m.maxContext = minSuccessor, minSuccessor
}

// rescale halves the frequencies of minContext, keeping the states sorted
// and dropping those that reach 0.
func (m *model8) rescale() {
	mem := m.mem
	mc := m.minContext
	stats := m.stats(mc)
	s := m.foundState

	adder := b2u(m.orderFall != 0)
	sumFreq, escFreq, s := halveStates(mem, stats, s, m.numStats(mc)+1, adder, m.summFreq(mc))

	if mem[s+1] == 0 {
		i := uint32(0)
		for {
			i++
			s -= stateSize
			if mem[s+1] != 0 {
				break
			}
		}
		escFreq += i
		numStats := m.numStats(mc)
		numStatsNew := numStats - i
		mem[mc] = byte(numStatsNew)
		n0 := (numStats + 2) >> 1
		if numStatsNew == 0 {
			freq := (2*uint32(mem[stats+1]) + escFreq - 1) / escFreq
			if freq > maxFreq/3 {
				freq = maxFreq / 3
			}
			m.toOneState(mc, stats, freq)
			m.foundState = mc + 2
			m.insertNode(stats, u2i(n0))
			return
		}
		n1 := (numStatsNew + 2) >> 1
		if n0 != n1 {
			m.setStats(mc, m.shrinkUnits(stats, n0, n1))
		}
	}
	m.setSummFreq(mc, sumFreq+escFreq-(escFreq>>1))
	mem[mc+1] |= flagRescaled8
	m.foundState = m.stats(mc)
}

// makeEscFreq picks the SEE context for an escape from minContext after
// escaping from a context with numMasked1+1 symbols.
func (m *model8) makeEscFreq(numMasked1 uint32) (*see, uint32) {
	mc := m.minContext
	numStats := m.numStats(mc)
	if numStats == 0xFF {
		return &m.dummySee, 1
	}
	j := b2u(m.summFreq(mc) > 11*(numStats+1)) +
		2*b2u(2*numStats < m.numStats(m.suffix(mc))+numMasked1) +
		m.flags(mc)
	sp := &m.see[(ns2Indx8[numStats+2]-3)%24][j&31]
	summ := sp.summ
	r := uint32(summ >> sp.shift)
	sp.summ = summ - uint16(r)
	return sp, r + b2u(r == 0)
}

func (m *model8) nextContext() {
	c := m.successor(m.foundState)
	if m.orderFall == 0 && c >= m.unitsStart {
		m.minContext, m.maxContext = c, c
	} else {
		m.updateModel()
	}
}

// Deliberate copy of Model.update1, update1_0, update2 and nextContext:
// they call this model's own rescale and updateModel (and PPMd8 tests a
// successor against unitsStart, PPMd7 against text); sharing them would
// need an interface call per symbol.
func (m *model8) update1() {
	s := m.foundState
	freq := uint32(m.mem[s+1]) + 4
	m.setSummFreq(m.minContext, m.summFreq(m.minContext)+4)
	m.mem[s+1] = byte(freq)
	if freq > uint32(m.mem[s-stateSize+1]) {
		m.swapStates(s, s-stateSize)
		s -= stateSize
		m.foundState = s
		if freq > maxFreq {
			m.rescale()
		}
	}
	m.nextContext()
}

func (m *model8) update1_0() {
	s := m.foundState
	mc := m.minContext
	freq := uint32(m.mem[s+1])
	summFreq := m.summFreq(mc)
	m.prevSuccess = b2u(2*freq >= summFreq)
	m.runLength += int32(m.prevSuccess)
	m.setSummFreq(mc, summFreq+4)
	freq += 4
	m.mem[s+1] = byte(freq)
	if freq > maxFreq {
		m.rescale()
	}
	m.nextContext()
}

func (m *model8) update2() {
	s := m.foundState
	freq := uint32(m.mem[s+1]) + 4
	m.runLength = m.initRL
	m.setSummFreq(m.minContext, m.summFreq(m.minContext)+4)
	m.mem[s+1] = byte(freq)
	if freq > maxFreq {
		m.rescale()
	}
	m.updateModel()
}
