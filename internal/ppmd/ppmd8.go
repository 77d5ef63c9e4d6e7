package ppmd

import (
	"github.com/go-unarc/unarc/internal/errs"
)

// PPMd variant I revision 1 ("PPMd8", Ppmd8.c in 7-Zip), the model of
// ZIP method 98. It shares the unit classes, the binary-context split
// table, the escape tables and the carry-less range decoder with the
// var.H model in this package, but nothing else: the context record
// has a Flags byte and stores NumStats-1, the sub-allocator stamps its
// free blocks (Ppmd8 glues by stamp and counts free blocks per class,
// which "cut off" restoration needs), the SEE and binary tables have
// other shapes and start values, and the model update differs in many
// constants. So it is a separate model here.

// Model parameters accepted for PPMd8 (7-Zip's Ppmd8.h, ZIP framing).
const (
	MinOrder8 = 2
	MaxOrder8 = 16
)

// Restoration methods: what the model does when its arena is full.
const (
	RestoreRestart = 0 // start over with an empty model
	RestoreCutOff  = 1 // prune the context tree and go on
)

const (
	emptyNode8    = 0xFFFFFFFF
	flagRescaled8 = 1 << 2
	flagPrevHigh8 = 1 << 4
)

// Arena records of the PPMd8 model (little-endian offsets from the arena
// start; the text area starts at alignOffset):
//
//	context (one unit): 0 NumStats u8 (symbols-1) | 1 Flags u8 | 2 SummFreq u16 | 4 Stats u32 | 8 Suffix u32
//	    with NumStats == 0 the single state is inline at offset 2
//	    (Symbol, Freq, Successor) in place of SummFreq and Stats.
//	state (6 bytes):    0 Symbol u8 | 1 Freq u8 | 2 Successor u32
//	free node (units):  0 Stamp u32 (0xFFFFFFFF) | 4 Next u32 | 8 NU u32
//
// Flags: 4 the context was rescaled, 8 a symbol >= 0x40 is in it, 16 the
// symbol that led to it was >= 0x40.

var (
	ns2Indx8     [260]uint8
	initBinSumm8 [25][64]uint16
	initSee8     [24][32]see
)

func init() {
	fillNS2Indx(ns2Indx8[:], 5)
	i := 0
	for m := 0; m < 25; m++ {
		for int(ns2Indx8[i]) == m {
			i++
		}
		for k := 0; k < 8; k++ {
			val := uint16(binScale - uint32(initBinEsc[k])/uint32(i+1))
			for r := 0; r < 64; r += 8 {
				initBinSumm8[m][k+r] = val
			}
		}
	}
	i = 0
	for m := 0; m < 24; m++ {
		for int(ns2Indx8[i+3]) == m+3 {
			i++
		}
		summ := uint16((2*i + 5) << (periodBits - 4))
		for k := range initSee8[m] {
			initSee8[m][k] = see{summ: summ, shift: periodBits - 4, count: 7}
		}
	}
}

// model8 is a PPMd var.I rev.1 model with its arena.
type model8 struct {
	units // the arena (alignOffset+size bytes) and its stamped sub-allocator

	minContext, maxContext uint32
	foundState             uint32
	orderFall, initEsc     uint32
	prevSuccess, maxOrder  uint32
	restoreMethod          uint32
	runLength, initRL      int32

	alignOffset uint32

	ps [MaxOrder8 + 1]uint32

	restarts int // restarts since init, for tests
	cutOffs  int // cut-off restorations since init, for tests

	// cutBudget bounds the cutOff calls of one restoration of a model
	// restored from a checkpoint (0: a model built from its stream, where
	// the contexts form a tree). A crafted state that passed the heap
	// checks can still share successors, which cutOff would walk once per
	// path, and its restoration loop would repeat while memory stays
	// full; past the budget it panics, and the Guarded reader that every
	// restored model is read through turns that into ErrCorrupt.
	cutBudget, cutLeft int

	mask [256]uint8

	dummySee see
	see      [24][32]see
	// binSumm has two spare rows so an impossible Freq cannot index past
	// it; a consistent model uses rows 0..24 only.
	binSumm [27][64]uint16
}

// init8 prepares the model for a stream (order MinOrder8..MaxOrder8,
// memSize bytes, restore method 0 or 1), reusing the arena if it fits.
func (m *model8) init8(order int, memSize uint32, restore int) error {
	if order < MinOrder8 || order > MaxOrder8 {
		return errs.Corrupt("ppmd8: model order %d out of range", order)
	}
	if memSize < MinMemory || memSize > 0xFFFFFFFF-12*3 {
		return errs.Corrupt("ppmd8: model memory %d out of range", memSize)
	}
	if restore != RestoreRestart && restore != RestoreCutOff {
		return errs.Unsupported("ppmd8: restoration method %d", restore)
	}
	align := (4 - memSize) & 3
	n := int(align) + int(memSize)
	// Model.Init ends alike: the two models set their own fields.
	m.useArena(n)
	m.stamped = true
	m.size = memSize
	m.alignOffset = align
	m.maxOrder = uint32(order)
	m.restoreMethod = uint32(restore)
	m.initEsc = 0
	m.restarts = 0
	m.cutOffs = 0
	m.cutBudget = 0
	m.restart()
	return nil
}

func (m *model8) numStats(c uint32) uint32 { return uint32(m.mem[c]) }
func (m *model8) flags(c uint32) uint32    { return uint32(m.mem[c+1]) }
func (m *model8) suffix(c uint32) uint32   { return m.u32(c + 8) }
func (m *model8) setSuccessor(s, v uint32) { m.put32(s+2, v) }

func (m *model8) swapStates(a, b uint32) {
	pa, pb := stateAt(m.mem, a), stateAt(m.mem, b)
	*pa, *pb = *pb, *pa
}

// copyUnits copies nu units from src to dst (non-overlapping blocks).
func (m *model8) copyUnits(dst, src, nu uint32) {
	copy(m.mem[dst:dst+nu*unitSize], m.mem[src:src+nu*unitSize])
}

// toOneState turns context c, whose only remaining state is at s, into
// a binary context with the given frequency.
func (m *model8) toOneState(c, s, freq uint32) {
	mem := m.mem
	mem[c+1] = byte(m.flags(c)&flagPrevHigh8 + hiBits3(uint32(mem[s])))
	mem[c+2] = mem[s]
	mem[c+3] = byte(freq)
	copy(mem[c+4:c+8], mem[s+2:s+6])
}

// ---- sub-allocator (units.go, stamped), PPMd8's extra operations ----

func (m *model8) shrinkUnits(oldPtr, oldNU, newNU uint32) uint32 {
	i0 := u2i(oldNU)
	i1 := u2i(newNU)
	if i0 == i1 {
		return oldPtr
	}
	if m.freeList[i1] != 0 {
		ptr := m.removeNode(i1)
		m.copyUnits(ptr, oldPtr, newNU)
		m.insertNode(oldPtr, i0)
		return ptr
	}
	m.splitBlock(oldPtr, i0, i1)
	return oldPtr
}

func (m *model8) freeUnits(ptr, nu uint32) { m.insertNode(ptr, u2i(nu)) }

func (m *model8) specialFreeUnit(ptr uint32) {
	if ptr != m.unitsStart {
		m.insertNode(ptr, 0)
	} else {
		m.unitsStart += unitSize
	}
}

// expandTextArea gives the free blocks right above the text area back to
// it, taking them off their free lists.
func (m *model8) expandTextArea() {
	var count [numIndexes]uint32
	if m.loUnit != m.hiUnit {
		m.put32(m.loUnit, 0)
	}
	end := uint32(len(m.mem)) - unitSize
	node := m.unitsStart
	for node <= end && m.u32(node) == emptyNode8 {
		nu := m.u32(node + 8)
		if nu == 0 || nu > 128 {
			break // not a listed free block: cannot happen
		}
		m.put32(node, 0)
		count[u2i(nu)]++
		node += nu * unitSize
	}
	m.unitsStart = node

	for i := range count {
		cnt := count[i]
		if cnt == 0 {
			continue
		}
		m.stamps[i] -= cnt
		prev := uint32(0) // 0: freeList[i], else the node whose Next links on
		n := m.freeList[i]
		for n != 0 {
			node := n
			n = m.u32(node + 4)
			if m.u32(node) != 0 {
				prev = node
				continue
			}
			if prev == 0 {
				m.freeList[i] = n
			} else {
				m.put32(prev+4, n)
			}
			cnt--
			if cnt == 0 {
				break
			}
		}
	}
}

// restart empties the model (Ppmd8.c RestartModel).
func (m *model8) restart() {
	m.restarts++
	m.resetUnits(m.alignOffset, m.size)

	m.orderFall = m.maxOrder
	m.initRL = -int32(min(m.maxOrder, 12)) - 1
	m.runLength = m.initRL
	m.prevSuccess = 0

	mc, s := m.newRoot()
	m.minContext, m.maxContext = mc, mc
	m.foundState = s
	m.mem[mc] = 255
	m.mem[mc+1] = 0
	copy(m.binSumm[:25], initBinSumm8[:])
	m.see = initSee8
	m.dummySee = see{summ: 0, shift: periodBits, count: 64}
}
