package lzma

// Prices are costs in 1/16 bit (7-Zip's kNumBitPriceShiftBits = 4), read
// from a table indexed by the probability's top 7 bits, so the optimal
// parser compares the same numbers 7-Zip's does.
const (
	priceShiftBits     = 4
	moveReducingBits   = 4
	infinityPrice      = 1 << 30
	kNumFullDistances  = 1 << (endPosModelIndex >> 1)
	repLenCount        = 64
	lenSymbols         = matchMaxLen - matchMinLen + 1
	kNumPosSlotBits    = 6
	kStartPosModelIdx  = 4
	kNumLenToPosStates = lenToPosStates
)

// probPrices[p>>4] is the price of a 0 bit at probability p (of a 1 bit:
// probPrices[(p^0x7FF)>>4]): about -log2(p/2048), computed by squaring as
// LzmaEnc_InitPriceTables does.
var probPrices = func() (t [kBitModelTotal >> moveReducingBits]uint32) {
	for i := range t {
		w := uint32(i)<<moveReducingBits + 1<<(moveReducingBits-1)
		bitCount := uint32(0)
		for range priceShiftBits {
			w *= w
			bitCount <<= 1
			for w >= 1<<16 {
				w >>= 1
				bitCount++
			}
		}
		t[i] = kNumBitModelTotalBits<<priceShiftBits - 15 - bitCount
	}
	return
}()

func price0(p uint16) uint32 { return probPrices[p>>moveReducingBits] }
func price1(p uint16) uint32 { return probPrices[(p^(kBitModelTotal-1))>>moveReducingBits] }
func priceBit(p uint16, b uint32) uint32 {
	return probPrices[(uint32(p)^(-b&(kBitModelTotal-1)))>>moveReducingBits]
}

// prices holds the tables the optimal parser reads: length prices per
// position state, distance prices and align prices, refreshed every 64
// matches (lengths of rep matches every 64 rep matches) as 7-Zip does.
type prices struct {
	lenPrices    [16][lenSymbols]uint32 // [posState][len-2]
	repLenPrices [16][lenSymbols]uint32
	posSlot      [kNumLenToPosStates][64]uint32
	dist         [kNumLenToPosStates][kNumFullDistances]uint32
	align        [16]uint32
	tableSize    int // lengths priced: fast bytes + 1 - 2
	distTable    int // position slots in use for the dictionary
	matchCount   int // matches since the distance prices were filled
	repLenCount  int // rep matches left before the rep length prices refresh
}

// litPrice is the price of literal c with the plain coder.
func litPrice(probs []uint16, c uint32) uint32 {
	probs = probs[:0x300]
	p := uint32(0)
	sym := c | 0x100
	for sym >= 2 {
		b := sym & 1
		sym >>= 1
		p += priceBit(probs[sym], b)
	}
	return p
}

// litMatchedPrice is the price of literal c after a match, coded against
// the match byte.
func litMatchedPrice(probs []uint16, c, match uint32) uint32 {
	probs = probs[:0x300]
	p := uint32(0)
	offs := uint32(0x100)
	sym := c | 0x100
	for sym < 0x10000 {
		match <<= 1
		p += priceBit(probs[offs+(match&offs)+(sym>>8)], sym>>7&1)
		sym <<= 1
		offs &^= match ^ sym
	}
	return p
}

// fillLen refreshes the price table t of length model lm.
func (pr *prices) fillLen(t *[16][lenSymbols]uint32, lm *lenModel, numPosStates int) {
	a := price0(lm.choice)
	b := price1(lm.choice)
	c := b + price0(lm.choice2)
	for ps := range numPosStates {
		row := &t[ps]
		for i := range uint32(8) {
			row[i] = a + treePrice(lm.low[ps][:], 3, i)
			row[8+i] = c + treePrice(lm.mid[ps][:], 3, i)
		}
	}
	if pr.tableSize > 16 {
		b += price1(lm.choice2)
		row := &t[0]
		for i := 16; i < pr.tableSize; i++ {
			row[i] = b + treePrice(lm.high[:], 8, uint32(i-16))
		}
		for ps := 1; ps < numPosStates; ps++ {
			copy(t[ps][16:pr.tableSize], row[16:pr.tableSize])
		}
	}
}

// treePrice is the price of coding the n low bits of sym through the bit
// tree probs, high bit first.
func treePrice(probs []uint16, n int, sym uint32) uint32 {
	p := uint32(0)
	sym |= 1 << uint(n)
	for sym >= 2 {
		b := sym & 1
		sym >>= 1
		p += priceBit(probs[sym], b)
	}
	return p
}

// reverseTreePrice is the price of coding the n low bits of sym low bit
// first.
func reverseTreePrice(probs []uint16, n int, sym uint32) uint32 {
	p := uint32(0)
	m := uint32(1)
	for range n {
		b := sym & 1
		sym >>= 1
		p += priceBit(probs[m], b)
		m = m<<1 | b
	}
	return p
}

// fillAlign refreshes the align prices.
func (pr *prices) fillAlign(m *model) {
	for i := range uint32(16) {
		pr.align[i] = reverseTreePrice(m.align[:], numAlignBits, i)
	}
}

// fillDist refreshes the position slot and full distance prices.
func (pr *prices) fillDist(m *model) {
	pr.matchCount = 0
	var temp [kNumFullDistances]uint32
	for d := uint32(kStartPosModelIdx); d < kNumFullDistances; d++ {
		slot := posSlotOf(d)
		footer := int(slot>>1 - 1)
		base := (2 | slot&1) << uint(footer)
		temp[d] = reverseTreePrice(m.posSpec[base:], footer, d-base)
	}
	for lps := range kNumLenToPosStates {
		ps := &pr.posSlot[lps]
		for slot := range uint32(pr.distTable) {
			ps[slot] = treePrice(m.posSlot[lps][:], kNumPosSlotBits, slot)
		}
		for slot := uint32(endPosModelIndex); slot < uint32(pr.distTable); slot++ {
			ps[slot] += (slot>>1 - 1 - numAlignBits) << priceShiftBits
		}
		dp := &pr.dist[lps]
		for d := range uint32(4) {
			dp[d] = ps[d]
		}
		for d := uint32(4); d < kNumFullDistances; d++ {
			dp[d] = ps[posSlotOf(d)] + temp[d]
		}
	}
}

// initPrices fills every table (at the start of a stream or chunk).
func (e *encoder) initPrices() {
	pr := &e.pr
	pr.tableSize = e.cfg.fastBytes + 1 - matchMinLen
	n := 0
	for n < 32 && e.cfg.dictSize > 1<<uint(n) {
		n++
	}
	pr.distTable = n * 2
	if !e.cfg.fast {
		pr.fillDist(e.m)
		pr.fillAlign(e.m)
	}
	pr.repLenCount = repLenCount
	nps := 1 << uint(e.cfg.pb)
	pr.fillLen(&pr.lenPrices, &e.m.matchLen, nps)
	pr.fillLen(&pr.repLenPrices, &e.m.repLen, nps)
}

// updatePrices refreshes the tables that are due, between optimum runs.
func (e *encoder) updatePrices() {
	pr := &e.pr
	nps := 1 << uint(e.cfg.pb)
	if pr.matchCount >= 64 {
		pr.fillAlign(e.m)
		pr.fillDist(e.m)
		pr.fillLen(&pr.lenPrices, &e.m.matchLen, nps)
	}
	if pr.repLenCount <= 0 {
		pr.repLenCount = repLenCount
		pr.fillLen(&pr.repLenPrices, &e.m.repLen, nps)
	}
}
