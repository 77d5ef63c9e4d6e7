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

func (e *rangeEnc) bit(p *uint16, b uint32) {
	bound := (e.rng >> kNumBitModelTotalBits) * uint32(*p)
	if b == 0 {
		e.rng = bound
		*p += (kBitModelTotal - *p) >> kNumMoveBits
	} else {
		e.low += uint64(bound)
		e.rng -= bound
		*p -= *p >> kNumMoveBits
	}
	for e.rng < 1<<24 {
		e.rng <<= 8
		e.shiftLow()
	}
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

// tree encodes the n low bits of sym high bit first through the bit tree
// probs (probs[1..1<<n-1]).
func (e *rangeEnc) tree(probs []uint16, n int, sym uint32) {
	m := uint32(1)
	for i := n - 1; i >= 0; i-- {
		b := sym >> uint(i) & 1
		e.bit(&probs[m], b)
		m = m<<1 | b
	}
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
