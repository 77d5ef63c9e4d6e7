package ppmd

import (
	"encoding/binary"

	"github.com/go-unarc/unarc/internal/pool"
)

// units is the sub-allocator of both models: blocks of 1..128 units of 12
// bytes in numIndexes size classes, each class with a singly linked free
// list, carved from the free space [loUnit, hiUnit) or, when that is
// gone, from the top of the text area (unitsStart moves down). It must
// match Ppmd7.c and Ppmd8.c step for step: when the arena runs out the
// model restarts (or is cut off), and that moment changes the decoded
// output. The two allocate, split, take from the text area and refill the
// free lists alike; they differ in how a free block is marked, which is
// what gluing adjacent free blocks relies on:
//
//   - PPMd7 (stamped false): a free block is {Next u32}. Gluing stamps
//     every free block {0 u16, NU u16, Next u32} itself and recognises a
//     free neighbour by its 16-bit stamp 0 (an allocated block starts
//     with a non-zero NumStats or Symbol+Freq); glueCount restarts at 255.
//   - PPMd8 (stamped true): a free block is always {0xFFFFFFFF u32,
//     Next u32, NU u32} and the free blocks of each class are counted in
//     stamps (the cut-off restoration and the used-memory test need the
//     counts); neighbours absorbed by gluing get NU 0; glueCount restarts
//     at 1<<13.
type units struct {
	mem        []byte  // the arena
	memp       *[]byte // pooled backing of mem
	size       uint32  // the model's memory (PPMd8: after alignOffset); 0 when released
	freeList   [numIndexes]uint32
	stamps     [numIndexes]uint32 // PPMd8: free blocks per class
	stamped    bool               // PPMd8's free-block layout
	glueCount  uint32
	loUnit     uint32 // free space [loUnit, hiUnit) between state vectors and contexts
	hiUnit     uint32
	text       uint32 // next free byte of the text area, below unitsStart
	unitsStart uint32

	// symPos[sym] is where stateOf last found sym in a state vector: a
	// guess, checked before use, that saves the walk through the
	// order-0 context (its states move only when frequencies cross).
	symPos [256]uint8
}

// useArena makes mem n bytes long, keeping the pooled arena when it is
// large enough.
func (u *units) useArena(n int) {
	if u.memp == nil || cap(*u.memp) < n {
		pool.Put(u.memp)
		u.memp = pool.Get(n)
		pool.AdviseHuge((*u.memp)[:cap(*u.memp)])
	}
	// cap == len: the accessors (get16, ctxAt, ...) slice mem[o:o+k],
	// which the compiler checks against the capacity only.
	u.mem = (*u.memp)[:n:n]
}

// releaseArena gives the arena back to the pool: both models' Release.
func (u *units) releaseArena() {
	pool.Put(u.memp)
	u.memp = nil
	u.mem = nil
	u.size = 0
}

// Arena accessors.

// Context and state fields at the same offsets in both models (PPMd7 and
// PPMd8): a context's SummFreq (+2) and Stats (+4), a state's Successor
// (+2). The rest differ (numStats is 16 bits in PPMd7, 8 in PPMd8).

func (u *units) summFreq(c uint32) uint32  { return u.u16(c + 2) }
func (u *units) setSummFreq(c, v uint32)   { u.put16(c+2, v) }
func (u *units) stats(c uint32) uint32     { return u.u32(c + 4) }
func (u *units) setStats(c, v uint32)      { u.put32(c+4, v) }
func (u *units) successor(s uint32) uint32 { return u.u32(s + 2) }

// newRoot allocates a restarted model's order-0 context and its 256
// states (each symbol once, frequency 1, no successor), with no suffix;
// the caller sets the symbol count, whose width differs.
func (u *units) newRoot() (mc, s uint32) {
	u.hiUnit -= unitSize
	mc, s = u.hiUnit, u.loUnit
	u.loUnit += u2b(256 / 2)
	u.setSummFreq(mc, 256+1)
	u.setStats(mc, s)
	u.put32(mc+8, 0)
	st := u.mem[s : s+256*stateSize]
	for i := range 256 {
		r := st[i*stateSize : i*stateSize+stateSize]
		r[0] = byte(i)
		r[1] = 1
		r[2], r[3], r[4], r[5] = 0, 0, 0, 0
	}
	return mc, s
}

func (u *units) u16(off uint32) uint32 { return get16(u.mem, off) }
func (u *units) u32(off uint32) uint32 { return get32(u.mem, off) }
func (u *units) put16(off, v uint32)   { put16(u.mem, off, v) }
func (u *units) put32(off, v uint32)   { put32(u.mem, off, v) }

// resetUnits empties the free lists and sets the text area to [text,
// text+size) with the unit area in its upper 7/8.
func (u *units) resetUnits(text, size uint32) {
	clear(u.freeList[:])
	clear(u.stamps[:])
	u.text = text
	u.hiUnit = text + size
	u.loUnit = u.hiUnit - size/8/unitSize*7*unitSize
	u.unitsStart = u.loUnit
	u.glueCount = 0
}

func (u *units) insertNode(node, indx uint32) {
	if u.stamped {
		u.put32(node, emptyNode8)
		u.put32(node+4, u.freeList[indx])
		u.put32(node+8, i2u(indx))
		u.freeList[indx] = node
		u.stamps[indx]++
		return
	}
	u.put32(node, u.freeList[indx])
	u.freeList[indx] = node
}

func (u *units) removeNode(indx uint32) uint32 {
	node := u.freeList[indx]
	if u.stamped {
		u.freeList[indx] = u.u32(node + 4)
		u.stamps[indx]--
		return node
	}
	u.freeList[indx] = u.u32(node)
	return node
}

// splitBlock returns the tail of a block of class oldIndx that is not
// needed for class newIndx to the free lists.
func (u *units) splitBlock(ptr, oldIndx, newIndx uint32) {
	nu := i2u(oldIndx) - i2u(newIndx)
	ptr += u2b(i2u(newIndx))
	i := u2i(nu)
	if i2u(i) != nu {
		i--
		k := i2u(i)
		u.insertNode(ptr+u2b(k), nu-k-1)
	}
	u.insertNode(ptr, i)
}

// allocUnitsRare is the slow path of allocUnits: glue, take a larger
// block and split it, or grow the unit area down into the text area.
// It returns 0 when memory is exhausted.
func (u *units) allocUnitsRare(indx uint32) uint32 {
	if u.glueCount == 0 {
		if u.stamped {
			u.glue8()
		} else {
			u.glue7()
		}
		if u.freeList[indx] != 0 {
			return u.removeNode(indx)
		}
	}
	i := indx
	for {
		i++
		if i == numIndexes {
			numBytes := u2b(i2u(indx))
			us := u.unitsStart
			u.glueCount--
			if us-u.text > numBytes {
				u.unitsStart = us - numBytes
				return u.unitsStart
			}
			return 0
		}
		if u.freeList[i] != 0 {
			break
		}
	}
	block := u.removeNode(i)
	u.splitBlock(block, i, indx)
	return block
}

// allocUnits allocates a block of class indx; 0 means out of memory.
func (u *units) allocUnits(indx uint32) uint32 {
	if u.freeList[indx] != 0 {
		return u.removeNode(indx)
	}
	numBytes := u2b(i2u(indx))
	lo := u.loUnit
	if u.hiUnit-lo >= numBytes {
		u.loUnit = lo + numBytes
		return lo
	}
	return u.allocUnitsRare(indx)
}

// allocContext allocates one unit for a context record, from the top of
// the free space first; 0 means out of memory.
func (u *units) allocContext() uint32 {
	if u.hiUnit != u.loUnit {
		u.hiUnit -= unitSize
		return u.hiUnit
	}
	if u.freeList[0] != 0 {
		return u.removeNode(0)
	}
	return u.allocUnitsRare(0)
}

// refill puts the glued blocks of the list at head (linked through Next
// at +4; NU at nuOff, 16 bits wide for PPMd7, 32 for PPMd8; absorbed
// blocks have NU 0) back on the free lists, in runs of at most 128 units.
func (u *units) refill(head uint32) {
	for n := head; n != 0; {
		node := n
		var nu uint32
		if u.stamped {
			nu = u.u32(node + 8)
		} else {
			nu = u.u16(node + 2)
		}
		n = u.u32(node + 4)
		if nu == 0 {
			continue
		}
		for ; nu > 128; nu, node = nu-128, node+128*unitSize {
			u.insertNode(node, numIndexes-1)
		}
		i := u2i(nu)
		if i2u(i) != nu {
			i--
			k := i2u(i)
			u.insertNode(node+k*unitSize, nu-k-1)
		}
		u.insertNode(node, i)
	}
}

// glue7 merges adjacent free blocks and refills the free lists (Ppmd7.c
// GlueFreeBlocks, single-linked variant); loUnit gets a guard stamp.
func (u *units) glue7() {
	u.glueCount = 255
	if u.loUnit != u.hiUnit {
		u.put16(u.loUnit, 1)
	}

	// Collect every free block into one list of nodes {0, NU, Next}.
	var n uint32
	for i := uint32(0); i < numIndexes; i++ {
		nu := i2u(i)
		next := u.freeList[i]
		u.freeList[i] = 0
		for next != 0 {
			tmp := next
			next = u.u32(next)
			u.put16(tmp, 0)
			u.put16(tmp+2, nu)
			u.put32(tmp+4, n)
			n = tmp
		}
	}
	head := n

	// Glue each block with the free blocks that follow it in memory.
	// Nodes absorbed before they are reached get NU 0 and are unlinked.
	prev := uint32(0) // 0: head, else the node whose Next field links on
	for n != 0 {
		node := n
		nu := u.u16(node + 2)
		n = u.u32(node + 4)
		if nu == 0 {
			if prev == 0 {
				head = n
			} else {
				u.put32(prev+4, n)
			}
			continue
		}
		prev = node
		for {
			node2 := node + nu*unitSize
			nu += u.u16(node2 + 2)
			if u.u16(node2) != 0 || nu >= 0x10000 {
				break
			}
			u.put16(node+2, nu)
			u.put16(node2+2, 0)
		}
	}

	// Refill in the same direction as the glue pass, so absorbed nodes
	// are skipped before their headers are reused.
	u.refill(head)
}

// glue8 merges free blocks with the free blocks that follow them in
// memory and refills the free lists (Ppmd8.c GlueFreeBlocks).
func (u *units) glue8() {
	u.glueCount = 1 << 13
	clear(u.stamps[:])
	if u.loUnit != u.hiUnit {
		u.put32(u.loUnit, 0) // guard
	}
	end := uint32(len(u.mem)) - unitSize

	// Link all free blocks into one list (head, through Next), gluing
	// each with its free successors; absorbed blocks get NU 0.
	var head uint32
	prev := uint32(0) // 0: head, else the node whose Next links on
	link := func(v uint32) {
		if prev == 0 {
			head = v
		} else {
			u.put32(prev+4, v)
		}
	}
	for i := 0; i < numIndexes; i++ {
		next := u.freeList[i]
		u.freeList[i] = 0
		for next != 0 {
			node := next
			nu := u.u32(node + 8)
			link(next)
			next = u.u32(node + 4)
			if nu != 0 {
				prev = node
				for {
					node2 := node + nu*unitSize
					if node2 > end || node2 < node || u.u32(node2) != emptyNode8 {
						break
					}
					nu += u.u32(node2 + 8)
					u.put32(node2+8, 0)
					u.put32(node+8, nu)
				}
			}
		}
	}
	link(0)
	u.refill(head)
}

// findState returns the offset of the first state at or after s whose
// symbol is sym; the vector must hold it (the model's invariant: a suffix
// context holds every symbol of its successors). It tests two states per
// 64-bit load (symbols at bytes 0 and 6) where the arena has 8 bytes.
func findState(mem []byte, s uint32, sym byte) uint32 {
	for uint64(s)+8 <= uint64(len(mem)) {
		x := binary.LittleEndian.Uint64(mem[s:])
		if byte(x) == sym {
			return s
		}
		if byte(x>>48) == sym {
			return s + stateSize
		}
		s += 2 * stateSize
	}
	for mem[s] != sym {
		s += stateSize
	}
	return s
}

// stateOf returns the offset of the state with symbol sym among the n
// states at stats, which hold it. It tries the index sym last had first.
func (u *units) stateOf(stats, n uint32, sym byte) uint32 {
	if k := uint32(u.symPos[sym]); k < n {
		if s := stats + k*stateSize; u.mem[s] == sym {
			return s
		}
	}
	s := findState(u.mem, stats, sym)
	u.symPos[sym] = uint8((s - stats) / stateSize)
	return s
}
