package ppmd

import (
	"github.com/go-unarc/unarc/internal/errs"
)

// Model parameters accepted by Init (7-Zip's Ppmd7.h limits).
const (
	MinOrder  = 2
	MaxOrder  = 64
	MinMemory = 1 << 11
	MaxMemory = 0xFFFFFFFF - 12*3
)

const (
	maxFreq    = 124
	unitSize   = 12
	numIndexes = 4 + 4 + 4 + 26 // unit-count classes of the sub-allocator
	intBits    = 7
	periodBits = 7
	binScale   = 1 << (intBits + periodBits)
	stateSize  = 6
)

// Arena records (all little-endian, offsets relative to the arena start):
//
//	context (one unit):  0 NumStats u16 | 2 SummFreq u16 | 4 Stats u32 | 8 Suffix u32
//	    with NumStats == 1 the single state is stored inline at offset 2
//	    (Symbol, Freq, Successor) in place of SummFreq and Stats.
//	state (6 bytes):     0 Symbol u8 | 1 Freq u8 | 2 Successor u32
//	free node:           0 next-in-free-list u32; while gluing:
//	                     0 Stamp u16 (0 = free) | 2 NU u16 | 4 Next u32
//
// A successor is 0 (none), an offset into the text area (a "raw"
// successor, below unitsStart) or the offset of a context record.

var (
	indx2Units [numIndexes]uint8
	units2Indx [128]uint8
	ns2BSIndx  [256]uint8
	ns2Indx    [256]uint8
)

var expEscape = [16]uint8{25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2}

var initBinEsc = [8]uint16{0x3CDD, 0x1F3F, 0x59BF, 0x48F3, 0x64A1, 0x5ABC, 0x6632, 0x6051}

// initBinSumm and initSee are the start values of the binary and SEE
// contexts, copied in on every restart (tiny arenas restart often).
var (
	initBinSumm [128][64]uint16
	initSee     [25][16]see
)

func init() {
	for i := range initBinSumm {
		for k := 0; k < 8; k++ {
			val := uint16(binScale - uint32(initBinEsc[k])/uint32(i+2))
			for j := 0; j < 64; j += 8 {
				initBinSumm[i][k+j] = val
			}
		}
	}
	for i := range initSee {
		summ := uint16((5*i + 10) << (periodBits - 4))
		for k := range initSee[i] {
			initSee[i][k] = see{summ: summ, shift: periodBits - 4, count: 4}
		}
	}
	k := 0
	for i := 0; i < numIndexes; i++ {
		step := 4
		if i < 12 {
			step = i>>2 + 1
		}
		for ; step > 0; step-- {
			units2Indx[k] = uint8(i)
			k++
		}
		indx2Units[i] = uint8(k)
	}
	ns2BSIndx[0] = 0 << 1
	ns2BSIndx[1] = 1 << 1
	for i := 2; i < 11; i++ {
		ns2BSIndx[i] = 2 << 1
	}
	for i := 11; i < 256; i++ {
		ns2BSIndx[i] = 3 << 1
	}
	fillNS2Indx(ns2Indx[:], 3)
}

// fillNS2Indx fills a NS2Indx table (PPMd7: first 3, PPMd8: 5): the
// counts below first map to themselves, then each next index m covers
// m-first+1 counts.
func fillNS2Indx(t []uint8, first int) {
	for i := range first {
		t[i] = uint8(i)
	}
	m, step := first, 1
	for i := first; i < len(t); i++ {
		t[i] = uint8(m)
		step--
		if step == 0 {
			m++
			step = m - first + 1
		}
	}
}

// see is a secondary escape estimation context.
type see struct {
	summ  uint16 // wraps at 16 bits like the reference
	shift uint8  // speed of adaptation; low is fast
	count uint8  // symbols until shift changes
}

// Model is a PPMd var.H model with its sub-allocator arena, shared by the
// two decoders (Reader7z and RAR own one each; other packages rarely need
// it directly). The zero value is not ready: call Init. A Model can be
// reused through Init; it keeps its arena when the new size fits. Release
// returns the arena to the pool. Besides the arena a Model holds about
// 330 KiB, whatever the stream: the SEE and binary-context tables and
// the block-sum cache of big contexts (see bigSums).
type Model struct {
	units // the arena (len == size) and its sub-allocator

	minContext, maxContext uint32 // context offsets
	foundState             uint32 // state offset
	orderFall, initEsc     uint32
	prevSuccess, maxOrder  uint32
	hiBitsFlag             uint32
	runLength, initRL      int32

	ps [MaxOrder]uint32 // createSuccessors scratch, kept here to skip zeroing it

	restarts int // model (re)starts since Init, for tests: > 1 means the arena filled

	// mask[s] is 0 for a symbol excluded by the escapes of the current
	// decode, 0xFF otherwise, so frequencies are summed without branches.
	mask    [256]uint8
	nMasked uint32 // symbols masked in mask

	// big caches block sums of contexts with many states for the masked
	// decode (bigSymbol). It is derived from the arena: an entry counts
	// only while its gen is the model's, and restart bumps gen, so a
	// restored model snapshot must bump gen too (or carry big along).
	gen uint32
	big [bigSlots]bigSums

	dummySee see
	see      [25][16]see
	binSumm  [128][64]uint16
}

// NewModel returns an empty Model; call Init before decoding.
func NewModel() *Model { return new(Model) }

// Init prepares the model for a new stream of the given order and memory
// size in bytes (MinOrder..MaxOrder, MinMemory..MaxMemory). It allocates
// memSize bytes unless the arena already held is large enough; callers
// bound memSize by their limits first.
func (m *Model) Init(order, memSize int) error {
	if order < MinOrder || order > MaxOrder {
		return errs.Corrupt("ppmd: model order %d out of range", order)
	}
	if memSize < MinMemory || uint64(memSize) > MaxMemory {
		return errs.Corrupt("ppmd: model memory %d out of range", memSize)
	}
	m.useArena(memSize)
	m.size = uint32(memSize)
	m.maxOrder = uint32(order)
	m.initEsc = 0
	m.hiBitsFlag = 0
	m.restarts = 0
	m.restart()
	return nil
}

// Release gives the arena back to the pool; Init must run before the next
// use.
func (m *Model) Release() {
	m.releaseArena()
}

func (m *Model) numStats(c uint32) uint32 { return m.u16(c) }
func (m *Model) setNumStats(c, v uint32)  { m.put16(c, v) }
func oneState(c uint32) uint32            { return c + 2 }
func hiBits3(sym uint32) uint32           { return ((sym + 0xC0) >> (8 - 3)) & (1 << 3) }
func hiBits4(sym uint32) uint32           { return ((sym + 0xC0) >> (8 - 4)) & (1 << 4) }
func i2u(indx uint32) uint32              { return uint32(indx2Units[indx]) }
func u2i(nu uint32) uint32                { return uint32(units2Indx[nu-1]) }
func u2b(nu uint32) uint32                { return nu * unitSize }
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// swapStates exchanges the 6-byte states at a and b.
func (m *Model) swapStates(a, b uint32) {
	pa, pb := stateAt(m.mem, a), stateAt(m.mem, b)
	*pa, *pb = *pb, *pa
}

// restart empties the model: one order-0 context with all 256 symbols at
// frequency 1 (Ppmd7.c RestartModel).
func (m *Model) restart() {
	m.restarts++
	m.gen++
	m.resetUnits(0, m.size)

	m.orderFall = m.maxOrder
	rl := min(m.maxOrder, 12)
	m.initRL = -int32(rl) - 1
	m.runLength = m.initRL
	m.prevSuccess = 0

	mc, s := m.newRoot()
	m.minContext, m.maxContext = mc, mc
	m.foundState = s
	m.setNumStats(mc, 256)

	m.binSumm = initBinSumm
	m.see = initSee
	m.dummySee = see{summ: 0, shift: periodBits, count: 64}
}
