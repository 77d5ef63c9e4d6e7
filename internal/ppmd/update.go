package ppmd

import "encoding/binary"

// Model update after each decoded symbol (Ppmd7.c: CreateSuccessors,
// UpdateModel, Rescale, MakeEscFreq, Update1, Update1_0, Update2).

// createSuccessors turns the raw successor of foundState into context
// records: one new single-symbol context for foundState and for every
// suffix state that shares the same raw successor. It returns the new
// (or existing) context, or 0 when memory is exhausted.
func (m *Model) createSuccessors() uint32 {
	mem := m.mem
	c := m.minContext
	upBranch := get32(mem, m.foundState+2)
	ps := &m.ps
	numPs := 0
	if m.orderFall != 0 {
		ps[numPs] = m.foundState
		numPs++
	}
	fsSym := mem[m.foundState]
	for {
		suffix := ctxAt(mem, c).suffix()
		if suffix == 0 {
			break
		}
		c = suffix
		cr := ctxAt(mem, c)
		var s uint32
		if ns := cr.numStats(); ns != 1 {
			if ns >= bigMin {
				s = m.bigState(c, ns, fsSym)
			} else {
				s = m.stateOf(cr.stats(), ns, fsSym)
			}
		} else {
			s = oneState(c)
		}
		succ := get32(mem, s+2)
		if succ != upBranch {
			c = succ
			if numPs == 0 {
				return c
			}
			break
		}
		ps[numPs&(MaxOrder-1)] = s
		numPs++
	}

	newSym := mem[upBranch]
	upBranch++
	var newFreq uint32
	if cr := ctxAt(mem, c); cr.numStats() == 1 {
		newFreq = uint32(cr[3])
	} else {
		ns := cr.numStats()
		var s uint32
		if ns >= bigMin {
			s = m.bigState(c, ns, newSym)
		} else {
			s = m.stateOf(cr.stats(), ns, newSym)
		}
		cf := uint32(mem[s+1]) - 1
		s0 := cr.summFreq() - ns - cf
		if 2*cf <= s0 {
			newFreq = 1 + b2u(5*cf > s0)
		} else {
			if s0 == 0 { // impossible in a consistent model (escape freq >= 1); avoid dividing by 0
				s0 = 1
			}
			newFreq = 1 + (2*cf+s0-1)/(2*s0) + 1
		}
	}

	for numPs != 0 {
		c1 := m.allocContext()
		if c1 == 0 {
			return 0
		}
		cr := ctxAt(mem, c1)
		cr.setNumStats(1)
		cr[2] = newSym
		cr[3] = byte(newFreq)
		cr.setStats(upBranch)
		cr.setSuffix(c)
		numPs--
		put32(mem, ps[numPs&(MaxOrder-1)]+2, c1)
		c = c1
	}
	return c
}

// bigState returns the state of sym in context c of ns >= bigMin
// states, which holds it, through c's block-sum entry if it has one
// (the callers test ns, so small contexts keep their direct call).
func (m *Model) bigState(c, ns uint32, sym byte) uint32 {
	if e := m.bigOf(c); e != nil {
		return e.state(m.mem, get32(m.mem, c+4), ns, sym)
	}
	return m.stateOf(get32(m.mem, c+4), ns, sym)
}

// updateModel adds the symbol just coded (foundState) to the contexts
// between maxContext and minContext, creates successor contexts, and
// moves to the next context. Out of memory restarts the model.
//
// It reads the arena through the local mem (the arena never moves while a
// stream decodes): the compiler reloads m.mem after every store into it,
// and this is the model's busiest writer.
func (m *Model) updateModel() {
	mem := m.mem
	fs := m.foundState
	fsSym := mem[fs]
	fsFreq := uint32(mem[fs+1])
	if fsFreq < maxFreq/4 {
		if c := ctxAt(mem, m.minContext).suffix(); c != 0 {
			// Update the symbol's frequency in the suffix context too.
			cr := ctxAt(mem, c)
			if ns := cr.numStats(); ns == 1 {
				if f := cr[3]; f < 32 {
					cr[3] = f + 1
				}
			} else {
				stats := cr.stats()
				s := stats
				var e *bigSums
				if ns >= bigMin {
					e = m.bigOf(c)
				}
				if mem[s] != fsSym {
					if e != nil {
						s = e.state(mem, s, ns, fsSym)
					} else {
						s = m.stateOf(s, ns, fsSym)
					}
					if mem[s+1] >= mem[s-stateSize+1] {
						if e != nil {
							e.swapDown(mem, stats, s)
						}
						m.swapStates(s, s-stateSize)
						s -= stateSize
					}
				}
				if f := mem[s+1]; f < maxFreq-9 {
					mem[s+1] = f + 2
					cr.setSummFreq(cr.summFreq() + 2)
					if e != nil {
						e.add(mem, stats, s, 2)
					}
				}
			}
		}
	}

	if m.orderFall == 0 {
		// At maximum order: foundState's successor is raw.
		mc := m.createSuccessors()
		m.minContext, m.maxContext = mc, mc
		if mc == 0 {
			m.restart()
			return
		}
		put32(mem, m.foundState+2, mc)
		return
	}

	mem[m.text] = fsSym
	m.text++
	if m.text >= m.unitsStart {
		m.restart()
		return
	}
	maxSuccessor := m.text

	minSuccessor := get32(mem, fs+2)
	if minSuccessor != 0 {
		if minSuccessor <= maxSuccessor {
			// Raw successor: make real contexts for it.
			cs := m.createSuccessors()
			if cs == 0 {
				m.restart()
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
	} else {
		// Only the root holds null successors.
		put32(mem, fs+2, maxSuccessor)
		minSuccessor = m.minContext
	}

	mc := m.minContext
	c := m.maxContext
	m.minContext, m.maxContext = minSuccessor, minSuccessor
	if c == mc {
		return
	}

	fsFreq = uint32(mem[fs+1])
	mcr := ctxAt(mem, mc)
	ns := mcr.numStats()
	s0 := mcr.summFreq() - ns - (fsFreq - 1) // escape frequency of mc
	for c != mc {
		cr := ctxAt(mem, c)
		ns1 := cr.numStats()
		var sum uint32
		if ns1 != 1 {
			if ns1&1 == 0 {
				// The state vector is full: grow it by one unit.
				oldNU := ns1 >> 1
				i := u2i(oldNU)
				if i != u2i(oldNU+1) {
					ptr := m.allocUnits(i + 1)
					if ptr == 0 {
						m.restart()
						return
					}
					old := cr.stats()
					copy(mem[ptr:ptr+u2b(oldNU)], mem[old:old+u2b(oldNU)])
					m.insertNode(old, i)
					cr.setStats(ptr)
				}
			}
			sum = cr.summFreq()
			sum += b2u(2*ns1 < ns) + 2*(b2u(4*ns1 <= ns)&b2u(sum <= 8*ns1))
		} else {
			// Turn the single-symbol context into a two-symbol one.
			s := m.allocUnits(0)
			if s == 0 {
				m.restart()
				return
			}
			freq := uint32(cr[3])
			mem[s] = cr[2]
			put32(mem, s+2, cr.stats())
			cr.setStats(s)
			if freq < maxFreq/4-1 {
				freq <<= 1
			} else {
				freq = maxFreq - 4
			}
			mem[s+1] = byte(freq)
			sum = freq + m.initEsc + b2u(ns > 3)
		}

		s := cr.stats() + ns1*stateSize
		cf := 2 * (sum + 6) * fsFreq
		sf := s0 + sum
		mem[s] = fsSym
		cr.setNumStats(ns1 + 1)
		put32(mem, s+2, maxSuccessor)
		if cf < 6*sf {
			cf = 1 + b2u(cf > sf) + b2u(cf >= 4*sf)
			sum += 3
		} else {
			cf = 4 + b2u(cf >= 9*sf) + b2u(cf >= 12*sf) + b2u(cf >= 15*sf)
			sum += cf
		}
		cr.setSummFreq(sum)
		mem[s+1] = byte(cf)
		if ns1 >= bigMin {
			if e := m.bigOf(c); e != nil {
				e.sym[fsSym] = newSymInfo(ns1, cf)
				e.has[fsSym>>6] |= 1 << (fsSym & 63)
				e.sum[(ns1/maskBlock)&(256/maskBlock-1)] += cf
				e.total += cf
			}
		}
		c = cr.suffix()
	}
}

// ctxRec is a context record in the arena (see the layout in model.go).
// Reading a context's fields through one ctxAt costs a single bounds
// check; get16 and get32 check every field again, and the update paths
// read several fields of the same context.
type ctxRec [unitSize]byte

func ctxAt(mem []byte, off uint32) *ctxRec { o := int(off); return (*ctxRec)(mem[o : o+unitSize]) }

func (c *ctxRec) numStats() uint32     { return uint32(c[0]) | uint32(c[1])<<8 }
func (c *ctxRec) summFreq() uint32     { return uint32(c[2]) | uint32(c[3])<<8 }
func (c *ctxRec) stats() uint32        { return binary.LittleEndian.Uint32(c[4:]) }
func (c *ctxRec) suffix() uint32       { return binary.LittleEndian.Uint32(c[8:]) }
func (c *ctxRec) setNumStats(v uint32) { binary.LittleEndian.PutUint16(c[0:], uint16(v)) }
func (c *ctxRec) setSummFreq(v uint32) { binary.LittleEndian.PutUint16(c[2:], uint16(v)) }
func (c *ctxRec) setStats(v uint32)    { binary.LittleEndian.PutUint32(c[4:], v) }
func (c *ctxRec) setSuffix(v uint32)   { binary.LittleEndian.PutUint32(c[8:], v) }

// Little-endian arena fields read through a local copy of the arena slice.
// Each slices mem[o:o+k] with o an int made from the uint32 offset: o+k
// cannot overflow, so one compare with the capacity (== len, see
// useArena) is the whole bounds check, where mem[off:] and the length
// check of the conversion or of binary's b[k-1] took three branches and
// pointer masking, a third of the arena accessors' instructions.
func get16(mem []byte, off uint32) uint32 {
	o := int(off)
	return uint32(binary.LittleEndian.Uint16(mem[o : o+2]))
}
func get32(mem []byte, off uint32) uint32 {
	o := int(off)
	return binary.LittleEndian.Uint32(mem[o : o+4])
}
func put16(mem []byte, off, v uint32) {
	o := int(off)
	binary.LittleEndian.PutUint16(mem[o:o+2], uint16(v))
}
func put32(mem []byte, off, v uint32) { o := int(off); binary.LittleEndian.PutUint32(mem[o:o+4], v) }

// statesAt is the vector of the n states at off.
func statesAt(mem []byte, off, n uint32) []byte {
	o := int(off)
	return mem[o : o+int(n)*stateSize]
}

// stateAt is the 6-byte state at off. Moving states through it compiles
// to plain loads and stores; copy of a 6-byte slice calls memmove, which
// was a tenth of rescale.
func stateAt(mem []byte, off uint32) *[stateSize]byte {
	o := int(off)
	return (*[stateSize]byte)(mem[o : o+stateSize])
}

// halveStates is the common part of both models' rescale: it moves the
// found state s of the n states at stats to the front, halves every
// frequency (the first one +4, all rounded up by adder), keeping the
// states sorted by frequency, and returns the new sum of frequencies,
// summFreq less the old sum, and the offset of the last state.
func halveStates(mem []byte, stats, s, n, adder, summFreq uint32) (sumFreq, escFreq, last uint32) {
	if s != stats {
		tmp := *stateAt(mem, s)
		copy(mem[stats+stateSize:s+stateSize], mem[stats:s])
		*stateAt(mem, stats) = tmp
		s = stats
	}
	sumFreq = uint32(mem[s+1])
	escFreq = summFreq - sumFreq
	sumFreq = (sumFreq + 4 + adder) >> 1
	mem[s+1] = byte(sumFreq)
	for i := n - 1; i > 0; i-- {
		s += stateSize
		freq := uint32(mem[s+1])
		escFreq -= freq
		freq = (freq + adder) >> 1
		sumFreq += freq
		mem[s+1] = byte(freq)
		if freq > uint32(mem[s-stateSize+1]) {
			// Insertion step: move the state up past smaller ones.
			tmp := *stateAt(mem, s)
			s1 := s
			for {
				*stateAt(mem, s1) = *stateAt(mem, s1-stateSize)
				s1 -= stateSize
				if s1 == stats || freq <= uint32(mem[s1-stateSize+1]) {
					break
				}
			}
			*stateAt(mem, s1) = tmp
		}
	}
	return sumFreq, escFreq, s
}

// rescale halves the frequencies of minContext, keeping the states sorted
// by frequency and dropping those that reach 0 (only possible at maximum
// order).
func (m *Model) rescale() {
	mc := m.minContext
	if m.numStats(mc) >= bigMin {
		if e := m.bigOf(mc); e != nil {
			e.ctx = 0 // states reordered (and maybe dropped)
		}
	}
	stats := m.stats(mc)
	s := m.foundState
	mem := m.mem

	adder := b2u(m.orderFall != 0)
	sumFreq, escFreq, s := halveStates(mem, stats, s, m.numStats(mc), adder, m.summFreq(mc))

	if mem[s+1] == 0 {
		// Remove the states whose frequency dropped to 0.
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
		m.setNumStats(mc, numStatsNew)
		n0 := (numStats + 1) >> 1
		if numStatsNew == 1 {
			freq := uint32(mem[stats+1])
			for {
				escFreq >>= 1
				freq = (freq + 1) >> 1
				if escFreq <= 1 {
					break
				}
			}
			one := oneState(mc)
			*stateAt(mem, one) = *stateAt(mem, stats)
			mem[one+1] = byte(freq)
			m.foundState = one
			m.insertNode(stats, u2i(n0))
			return
		}
		n1 := (numStatsNew + 1) >> 1
		if n0 != n1 {
			i0 := u2i(n0)
			i1 := u2i(n1)
			if i0 != i1 {
				if m.freeList[i1] != 0 {
					ptr := m.removeNode(i1)
					m.setStats(mc, ptr)
					copy(mem[ptr:ptr+u2b(n1)], mem[stats:stats+u2b(n1)])
					m.insertNode(stats, i0)
				} else {
					m.splitBlock(stats, i0, i1)
				}
			}
		}
	}
	m.setSummFreq(mc, sumFreq+escFreq-(escFreq>>1))
	m.foundState = m.stats(mc)
}

// makeEscFreq picks the SEE context for an escape from minContext with
// numMasked symbols already excluded and returns it with the escape
// frequency it estimates; mc is minContext's record.
func (m *Model) makeEscFreq(mc *ctxRec, numMasked uint32) (*see, uint32) {
	numStats := mc.numStats()
	if numStats == 256 {
		return &m.dummySee, 1
	}
	nonMasked := numStats - numMasked
	j := b2u(nonMasked < get16(m.mem, mc.suffix())-numStats) +
		2*b2u(mc.summFreq() < 11*numStats) +
		4*b2u(numMasked > nonMasked) +
		m.hiBitsFlag
	sp := &m.see[ns2Indx[(nonMasked-1)&0xFF]][j&15]
	summ := sp.summ
	r := uint32(summ >> sp.shift)
	sp.summ = summ - uint16(r)
	return sp, r + b2u(r == 0)
}

// nextContext moves to the successor of foundState when it is a real
// context at maximum order, else updates the model.
func (m *Model) nextContext() {
	c := get32(m.mem, m.foundState+2)
	if m.orderFall == 0 && c > m.text {
		m.minContext, m.maxContext = c, c
	} else {
		m.updateModel()
	}
}

// update1: a symbol other than the first was found in minContext.
func (m *Model) update1() {
	mem := m.mem
	s := m.foundState
	mc := ctxAt(mem, m.minContext)
	freq := uint32(mem[s+1]) + 4
	mc.setSummFreq(mc.summFreq() + 4)
	mem[s+1] = byte(freq)
	var e *bigSums
	if mc.numStats() >= bigMin {
		if e = m.bigOf(m.minContext); e != nil {
			e.add(mem, mc.stats(), s, 4)
		}
	}
	if freq > uint32(mem[s-stateSize+1]) {
		if e != nil {
			e.swapDown(mem, mc.stats(), s)
		}
		m.swapStates(s, s-stateSize)
		s -= stateSize
		m.foundState = s
		if freq > maxFreq {
			m.rescale()
		}
	}
	m.nextContext()
}

// update1_0: the first (most probable) symbol of minContext was found.
// Kept apart from update1 and update2 on purpose: each is one branch of
// decodeSymbol's per-symbol path, and a shared body would test which.
func (m *Model) update1_0() {
	mem := m.mem
	s := m.foundState
	mc := ctxAt(mem, m.minContext)
	freq := uint32(mem[s+1])
	summFreq := mc.summFreq()
	m.prevSuccess = b2u(2*freq > summFreq)
	m.runLength += int32(m.prevSuccess)
	mc.setSummFreq(summFreq + 4)
	freq += 4
	mem[s+1] = byte(freq)
	if mc.numStats() >= bigMin {
		if e := m.bigOf(m.minContext); e != nil {
			e.sum[0] += 4 // the first state is in block 0
			e.total += 4
			e.sym[mem[s]].addFreq(4)
		}
	}
	if freq > maxFreq {
		m.rescale()
	}
	m.nextContext()
}

// update2: the symbol was found after one or more escapes.
func (m *Model) update2() {
	mem := m.mem
	s := m.foundState
	mc := ctxAt(mem, m.minContext)
	freq := uint32(mem[s+1]) + 4
	m.runLength = m.initRL
	mc.setSummFreq(mc.summFreq() + 4)
	mem[s+1] = byte(freq)
	if mc.numStats() >= bigMin {
		if e := m.bigOf(m.minContext); e != nil {
			e.add(mem, mc.stats(), s, 4)
		}
	}
	if freq > maxFreq {
		m.rescale()
	}
	m.updateModel()
}
