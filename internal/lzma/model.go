package lzma

import "github.com/go-unarc/unarc/internal/pool"

// Model constants (specification, "The LZMA Decoder").
const (
	numStates        = 12
	numLitStates     = 7  // states below this follow a literal
	endPosModelIndex = 14 // position slots below this use posSpec
	numAlignBits     = 4  // low distance bits coded with the align tree
	lenToPosStates   = 4  // position-slot tree chosen by min(len-2, 3)
	matchMinLen      = 2  // shortest match
	probInit         = 1 << 10
	litSize          = 0x300 // probabilities per literal coder
)

// lenModel decodes match lengths (specification, "The length decoder").
// The arrays are indexed [posState][symbol] so the index needs no check.
type lenModel struct {
	choice  uint16
	choice2 uint16
	low     [16][8]uint16
	mid     [16][8]uint16
	high    [256]uint16
}

// model holds every adaptive probability of an LZMA coder. Arrays are
// rounded up to powers of two, indexed with masks, so the hot loop carries
// no bounds checks for them.
type model struct {
	isMatch    [256]uint16 // [state<<4 | posState]
	isRep      [16]uint16  // [state]
	isRepG0    [16]uint16
	isRepG1    [16]uint16
	isRepG2    [16]uint16
	isRep0Long [256]uint16 // [state<<4 | posState]
	posSlot    [lenToPosStates][64]uint16
	posSpec    [128]uint16 // 115 used: distances of slots 4..13
	align      [16]uint16
	matchLen   lenModel
	repLen     lenModel
	lit        []uint16 // litSize << (lc+lp); capacity kept across uses

	// litGen stamps each literal coder (litSize probabilities of lit)
	// with the gen of the decoder reset that last filled it. A decoder's
	// reset (resetLazy) bumps gen and fills a coder only when a literal
	// first uses it, so a reset costs what the data touches rather than
	// litSize<<(lc+lp) probabilities: 6 MiB at lc=8, lp=4, once per 7z
	// folder or LZMA2 state reset, for folders of a few bytes.
	litGen []uint32
	gen    uint32
}

var models = pool.Of[model]{New: func() *model { return new(model) }}

// reset sets every probability to one half and sizes the literal coders
// for lc+lp bits of context (specification, "Init").
func (m *model) reset(lc, lp int) {
	n := litSize << (lc + lp)
	if cap(m.lit) < n {
		m.lit = make([]uint16, n)
	}
	m.lit = m.lit[:n]
	fill(m.lit)
	m.resetFixed()
}

// resetFixed sets every probability outside the literal coders to one
// half.
func (m *model) resetFixed() {
	fill(m.isMatch[:])
	fill(m.isRep[:])
	fill(m.isRepG0[:])
	fill(m.isRepG1[:])
	fill(m.isRepG2[:])
	fill(m.isRep0Long[:])
	for i := range m.posSlot {
		fill(m.posSlot[i][:])
	}
	fill(m.posSpec[:])
	fill(m.align[:])
	m.matchLen.reset()
	m.repLen.reset()
}

// resetLazy is reset for a decoder: the fixed probabilities are set now,
// the literal coders when first used (freshLit).
func (m *model) resetLazy(lc, lp int) {
	k := 1 << (lc + lp)
	n := litSize * k
	if cap(m.lit) < n {
		m.lit = make([]uint16, n)
	}
	m.lit = m.lit[:n]
	if cap(m.litGen) < k {
		m.litGen = make([]uint32, k)
	}
	m.litGen = m.litGen[:k]
	m.gen++
	if m.gen == 0 { // wrapped: a stamp of an old use could match
		clear(m.litGen)
		m.gen = 1
	}
	m.resetFixed()
}

// freshLit fills literal coder c, stale since the last resetLazy.
func (m *model) freshLit(c uint32) {
	fill(m.lit[c*litSize : c*litSize+litSize])
	m.litGen[c] = m.gen
}

// freshAll fills every stale literal coder: done before the whole table
// is read or written (checkpoints), which must not see stale values.
func (m *model) freshAll() {
	for c := range m.litGen {
		if m.litGen[c] != m.gen {
			m.freshLit(uint32(c))
		}
	}
}

func (l *lenModel) reset() {
	l.choice, l.choice2 = probInit, probInit
	for i := range l.low {
		fill(l.low[i][:])
		fill(l.mid[i][:])
	}
	fill(l.high[:])
}

func fill(p []uint16) {
	for i := range p {
		p[i] = probInit
	}
}

// State transitions (specification, "UpdateState_*").
var litNext = [16]uint8{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}

func matchNext(s uint32) uint32 {
	if s < numLitStates {
		return 7
	}
	return 10
}

func repNext(s uint32) uint32 {
	if s < numLitStates {
		return 8
	}
	return 11
}

func shortRepNext(s uint32) uint32 {
	if s < numLitStates {
		return 9
	}
	return 11
}
