package lzma

// rangeEnc is the range encoder (specification, "The range encoder"; the
// SDK's RangeEnc). Bytes are appended to out, which the owner drains;
// low keeps 33 bits so a carry can ripple into the cached bytes.
type rangeEnc struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64 // the cached byte plus pending 0xFF bytes
	out       []byte
	flushed   int64 // bytes drained from out before
}

const (
	kNumBitModelTotalBits = 11
	kBitModelTotal        = 1 << kNumBitModelTotalBits
	kNumMoveBits          = 5
)

func (e *rangeEnc) reset() {
	e.low, e.rng, e.cache, e.cacheSize = 0, 0xFFFFFFFF, 0, 1
	e.out = e.out[:0]
	e.flushed = 0
}

// pending is the number of bytes the encoder has produced or will produce
// for what it has encoded so far, not counting the final flush.
func (e *rangeEnc) pending() int64 {
	return e.flushed + int64(len(e.out)) + e.cacheSize + 4
}

func (e *rangeEnc) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low >= 1<<32 {
		carry := byte(e.low >> 32)
		c := e.cache
		for {
			e.out = append(e.out, c+carry)
			c = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

// flush writes the last bytes of the stream.
func (e *rangeEnc) flush() {
	for range 5 {
		e.shiftLow()
	}
}

// bit encodes b with probability p. It is small enough to inline: one
// shift always renormalises, as a probability is at least 31/2048 from
// either end, so one bit leaves more than 2^18 of a range of 2^24.
func (e *rangeEnc) bit(p *uint16, b uint32) {
	v := *p
	bound := (e.rng >> kNumBitModelTotalBits) * uint32(v)
	if b == 0 {
		e.rng = bound
		*p = v + (kBitModelTotal-v)>>kNumMoveBits
	} else {
		e.low += uint64(bound)
		e.rng -= bound
		*p = v - v>>kNumMoveBits
	}
	if e.rng < 1<<24 {
		e.norm()
	}
}

//go:noinline
func (e *rangeEnc) norm() {
	e.rng <<= 8
	e.shiftLow()
}

// direct encodes the low n bits of v, high bit first, at probability 1/2.
func (e *rangeEnc) direct(v uint32, n int) {
	for n > 0 {
		n--
		e.rng >>= 1
		e.low += uint64(e.rng & (0 - (v >> uint(n) & 1)))
		for e.rng < 1<<24 {
			e.rng <<= 8
			e.shiftLow()
		}
	}
}

// codeBit codes bit b (0 or 1) with the probability *p on the coder state
// rng, low, and adapts *p; it returns the new state, which the caller
// normalises. It is small enough to inline, so tree and literal keep the
// state in registers.
func codeBit(p *uint16, b, rng uint32, low uint64) (uint32, uint64) {
	v := *p
	bound := (rng >> kNumBitModelTotalBits) * uint32(v)
	if b == 0 {
		*p = v + (kBitModelTotal-v)>>kNumMoveBits
		return bound, low
	}
	*p = v - v>>kNumMoveBits
	return rng - bound, low + uint64(bound)
}

// tree encodes the n low bits of sym high bit first through the bit tree
// probs (probs[1..1<<n-1]), with the coder state in registers.
func (e *rangeEnc) tree(probs []uint16, n int, sym uint32) {
	rng, low := e.rng, e.low
	m := uint32(1)
	for i := n - 1; i >= 0; i-- {
		b := sym >> uint(i) & 1
		rng, low = codeBit(&probs[m], b, rng, low)
		if rng < 1<<24 {
			rng <<= 8
			e.low = low
			e.shiftLow()
			low = e.low
		}
		m = m<<1 | b
	}
	e.rng, e.low = rng, low
}

// literal encodes byte c through the literal coder probs (0x300 of them);
// after a match (matched) it codes against match byte mb. As in tree, the
// coder state stays in locals across the bits (codeBit inlines).
func (e *rangeEnc) literal(probs []uint16, c uint32, matched bool, mb uint32) {
	probs = probs[:0x300]
	rng, low := e.rng, e.low
	sym := c | 0x100
	offs := uint32(0x100)
	if !matched {
		offs = 0
	}
	for sym < 0x10000 {
		mb <<= 1
		p := &probs[(offs+(mb&offs)+(sym>>8))&0x3FF]
		b := sym >> 7 & 1
		sym <<= 1
		offs &^= mb ^ sym
		rng, low = codeBit(p, b, rng, low)
		if rng < 1<<24 {
			rng <<= 8
			e.low = low
			e.shiftLow()
			low = e.low
		}
	}
	e.rng, e.low = rng, low
}

// reverseTree encodes the n low bits of sym low bit first.
func (e *rangeEnc) reverseTree(probs []uint16, n int, sym uint32) {
	m := uint32(1)
	for range n {
		b := sym & 1
		sym >>= 1
		e.bit(&probs[m], b)
		m = m<<1 | b
	}
}
