package ppmd

// The sub-allocator: blocks of 1..128 units of 12 bytes in 38 size
// classes, each with a singly linked free list threaded through the first
// 4 bytes of the free blocks. It must match Ppmd7.c step for step, since
// when the arena runs out the model restarts, and that moment changes the
// decoded output.

func (m *Model) insertNode(node, indx uint32) {
	m.put32(node, m.freeList[indx])
	m.freeList[indx] = node
}

func (m *Model) removeNode(indx uint32) uint32 {
	node := m.freeList[indx]
	m.freeList[indx] = m.u32(node)
	return node
}

// splitBlock returns the tail of a block of class oldIndx that is not
// needed for class newIndx to the free lists.
func (m *Model) splitBlock(ptr, oldIndx, newIndx uint32) {
	nu := i2u(oldIndx) - i2u(newIndx)
	ptr += u2b(i2u(newIndx))
	i := u2i(nu)
	if i2u(i) != nu {
		i--
		k := i2u(i)
		m.insertNode(ptr+u2b(k), nu-k-1)
	}
	m.insertNode(ptr, i)
}

// glueFreeBlocks merges adjacent free blocks and refills the free lists
// (Ppmd7.c GlueFreeBlocks, single-linked variant). The first 16 bits of
// every allocated unit block are non-zero (NumStats of a context, or
// Symbol+Freq of a state with Freq > 0), which is how a free neighbour
// (stamp 0) is recognised; loUnit gets a guard stamp.
func (m *Model) glueFreeBlocks() {
	m.glueCount = 255
	if m.loUnit != m.hiUnit {
		m.put16(m.loUnit, 1)
	}

	// Collect every free block into one list of nodes {0, NU, Next}.
	var n uint32
	for i := uint32(0); i < numIndexes; i++ {
		nu := i2u(i)
		next := m.freeList[i]
		m.freeList[i] = 0
		for next != 0 {
			tmp := next
			next = m.u32(next)
			m.put16(tmp, 0)
			m.put16(tmp+2, nu)
			m.put32(tmp+4, n)
			n = tmp
		}
	}
	head := n

	// Glue each block with the free blocks that follow it in memory.
	// Nodes absorbed before they are reached get NU 0 and are unlinked.
	prev := uint32(0) // 0: head, else the node whose Next field links on
	for n != 0 {
		node := n
		nu := m.u16(node + 2)
		n = m.u32(node + 4)
		if nu == 0 {
			if prev == 0 {
				head = n
			} else {
				m.put32(prev+4, n)
			}
			continue
		}
		prev = node
		for {
			node2 := node + nu*unitSize
			nu += m.u16(node2 + 2)
			if m.u16(node2) != 0 || nu >= 0x10000 {
				break
			}
			m.put16(node+2, nu)
			m.put16(node2+2, 0)
		}
	}

	// Refill the free lists, walking in the same direction as the glue
	// pass so absorbed nodes are skipped before their headers are reused.
	for n = head; n != 0; {
		node := n
		nu := m.u16(node + 2)
		n = m.u32(node + 4)
		if nu == 0 {
			continue
		}
		for ; nu > 128; nu, node = nu-128, node+128*unitSize {
			m.insertNode(node, numIndexes-1)
		}
		i := u2i(nu)
		if i2u(i) != nu {
			i--
			k := i2u(i)
			m.insertNode(node+k*unitSize, nu-k-1)
		}
		m.insertNode(node, i)
	}
}

// allocUnitsRare is the slow path of allocUnits: glue, take a larger
// block and split it, or grow the unit area down into the text area.
// It returns 0 when memory is exhausted.
func (m *Model) allocUnitsRare(indx uint32) uint32 {
	if m.glueCount == 0 {
		m.glueFreeBlocks()
		if m.freeList[indx] != 0 {
			return m.removeNode(indx)
		}
	}
	i := indx
	for {
		i++
		if i == numIndexes {
			numBytes := u2b(i2u(indx))
			us := m.unitsStart
			m.glueCount--
			if us-m.text > numBytes {
				m.unitsStart = us - numBytes
				return m.unitsStart
			}
			return 0
		}
		if m.freeList[i] != 0 {
			break
		}
	}
	block := m.removeNode(i)
	m.splitBlock(block, i, indx)
	return block
}

// allocUnits allocates a block of class indx; 0 means out of memory.
func (m *Model) allocUnits(indx uint32) uint32 {
	if m.freeList[indx] != 0 {
		return m.removeNode(indx)
	}
	numBytes := u2b(i2u(indx))
	lo := m.loUnit
	if m.hiUnit-lo >= numBytes {
		m.loUnit = lo + numBytes
		return lo
	}
	return m.allocUnitsRare(indx)
}

// allocContext allocates one unit for a context record, from the top of
// the free space first.
func (m *Model) allocContext() uint32 {
	if m.hiUnit != m.loUnit {
		m.hiUnit -= unitSize
		return m.hiUnit
	}
	if m.freeList[0] != 0 {
		return m.removeNode(0)
	}
	return m.allocUnitsRare(0)
}
