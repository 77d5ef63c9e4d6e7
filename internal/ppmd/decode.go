package ppmd

import (
	"bufio"
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/go-unarc/unarc/internal/errs"
)

const (
	symEnd   = -1 // escape out of the order-0 context: end marker
	symError = -2 // the range decoder's code points outside the total
)

const (
	kTop = 1 << 24
	kBot = 1 << 15
)

// rangeDecoder is either 7-Zip's range decoder (Ppmd7z) or the
// carry-less range decoder of PPMd var.H as used by RAR (Ppmd7a, rar set).
// The two differ only in normalisation and in the binary-context split.
//
// Input comes in one of two modes. In slice mode (pk != nil) the decoder
// reads in[ip:], bytes Peek'ed from pk, and sync Discards what it used, so
// between calls pk is positioned exactly after the consumed bytes. In
// exact mode (pk == nil) bytes come one at a time from br (RAR's v29
// unpacker owns that source and reads on after the PPMd block).
type rangeDecoder struct {
	rng, code, low uint32
	rar            bool
	in             []byte // slice mode: Peek'ed bytes, in[ip:] unread
	ip             int
	pk             peeker
	br             io.ByteReader // exact mode
	err            error         // first read error; bytes read after it are 0
	pos            int64         // input bytes consumed before in[ip] (checkpoint.go)
}

// peeker is a buffered source read in place (*bufio.Reader, or the zip
// stream's bounded input).
type peeker interface {
	io.Reader
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Buffered() int
}

// setSource picks the input mode for r: slice mode when r can be peeked;
// exact mode when r is an io.ByteReader (never read ahead); otherwise r
// is wrapped in *own (allocated once, kept by the caller across streams)
// and read in slice mode. init7z or initRAR follows.
func (rc *rangeDecoder) setSource(r io.Reader, own **bufio.Reader) {
	rc.in, rc.ip, rc.pk, rc.br, rc.err, rc.pos = nil, 0, nil, nil, nil, 0
	if pk, ok := r.(peeker); ok {
		rc.pk = pk
		return
	}
	if br, ok := r.(io.ByteReader); ok {
		rc.br = br
		return
	}
	if *own == nil {
		*own = bufio.NewReaderSize(r, 1<<16)
	} else {
		(*own).Reset(r)
	}
	rc.pk = *own
}

// setExact reads br one byte at a time, never ahead (RAR: the v29
// unpacker reads on from br after the PPMd block).
func (rc *rangeDecoder) setExact(br io.ByteReader) {
	rc.in, rc.ip, rc.pk, rc.br, rc.err, rc.pos = nil, 0, nil, br, nil, 0
}

// readByte returns the next input byte, 0 after a read error.
func (rc *rangeDecoder) readByte() uint32 {
	if uint(rc.ip) < uint(len(rc.in)) {
		b := rc.in[rc.ip]
		rc.ip++
		return uint32(b)
	}
	return rc.readMore()
}

// readMore is readByte's slow path: the next byte of an exact-mode source,
// or a fresh Peek of the slice-mode source.
func (rc *rangeDecoder) readMore() uint32 {
	if rc.pk == nil {
		if rc.br == nil {
			rc.fail(io.ErrUnexpectedEOF)
			return 0
		}
		b, err := rc.br.ReadByte()
		if err != nil {
			rc.fail(err)
			return 0
		}
		rc.pos++
		return uint32(b)
	}
	rc.sync()
	n := rc.pk.Buffered()
	if n == 0 {
		if _, err := rc.pk.Peek(1); err != nil {
			rc.fail(err)
			return 0
		}
		n = rc.pk.Buffered()
	}
	rc.in, _ = rc.pk.Peek(n)
	if len(rc.in) == 0 {
		rc.fail(io.ErrNoProgress)
		return 0
	}
	rc.ip = 1
	return uint32(rc.in[0])
}

func (rc *rangeDecoder) fail(err error) {
	if rc.err == nil {
		rc.err = err
	}
}

// sync discards the consumed input from a slice-mode source, so it is
// positioned right after the bytes decoded so far.
func (rc *rangeDecoder) sync() {
	if rc.pk != nil && rc.ip > 0 {
		rc.pos += int64(rc.ip)
		rc.pk.Discard(rc.ip)
		rc.in, rc.ip = rc.in[rc.ip:], 0
		// After Discard the Peek'ed bytes stay valid until pk is read
		// again, which only readMore does, after another sync.
	}
}

// detach gives the source up after syncing it; own, the caller's wrapper
// (kept for the next stream), drops its reference to it.
func (rc *rangeDecoder) detach(own *bufio.Reader) {
	rc.sync()
	*rc = rangeDecoder{}
	if own != nil {
		own.Reset(nil)
	}
}

// atEOF syncs and reports whether the source holds no more bytes; a read
// error other than io.EOF is returned.
func (rc *rangeDecoder) atEOF() (bool, error) {
	rc.sync()
	if rc.ip < len(rc.in) {
		return false, nil
	}
	if rc.pk != nil {
		if _, err := rc.pk.Peek(1); err == nil {
			return false, nil
		} else if err != io.EOF {
			return false, err
		}
		return true, nil
	}
	if rc.br == nil {
		return true, nil
	}
	if _, err := rc.br.ReadByte(); err == nil {
		return false, nil
	} else if err != io.EOF {
		return false, err
	}
	return true, nil
}

// init7z starts a Ppmd7z stream: a zero byte, then 4 code bytes.
func (rc *rangeDecoder) init7z() error {
	rc.rng, rc.code, rc.low, rc.rar = 0xFFFFFFFF, 0, 0, false
	first := rc.readByte()
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | rc.readByte()
	}
	if rc.err != nil {
		return errs.EOF(rc.err, "ppmd: range coder header")
	}
	if first != 0 || rc.code == 0xFFFFFFFF {
		return errs.Corrupt("ppmd: bad range coder header")
	}
	return nil
}

// initRAR starts a carry-less range decoder: 4 code bytes. Like unrar and
// 7-Zip, no value is rejected.
func (rc *rangeDecoder) initRAR() error {
	rc.rng, rc.code, rc.low, rc.rar = 0xFFFFFFFF, 0, 0, true
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | rc.readByte()
	}
	if rc.err != nil {
		return errs.EOF(rc.err, "ppmd: range coder header")
	}
	return nil
}

// normalize refills the range. 7z: at most two bytes bring the range back
// to >= 2^24. RAR: Subbotin's carry-less rule.
func (rc *rangeDecoder) normalize() {
	if !rc.rar {
		if rc.rng < kTop {
			rc.code = rc.code<<8 | rc.readByte()
			rc.rng <<= 8
			if rc.rng < kTop {
				rc.code = rc.code<<8 | rc.readByte()
				rc.rng <<= 8
			}
		}
		return
	}
	rng, low, code := rc.rng, rc.low, rc.code
	for {
		if low^(low+rng) >= kTop {
			if rng >= kBot {
				break
			}
			rng = -low & (kBot - 1)
			if rng == 0 {
				// Only corrupt input gets here; a zero range would shift
				// forever. Later totals exceed it and fail the symbol.
				break
			}
		}
		var b uint32
		if uint(rc.ip) < uint(len(rc.in)) { // readByte, inlined by hand
			b = uint32(rc.in[rc.ip])
			rc.ip++
		} else {
			b = rc.readMore()
		}
		code = code<<8 | b
		rng <<= 8
		low <<= 8
	}
	rc.rng, rc.low, rc.code = rng, low, code
}

// normRAR is normalize for the carry-less decoder with the common case,
// nothing to do, inlined.
func (rc *rangeDecoder) normRAR() {
	if rc.rng < kBot || rc.low^(rc.low+rc.rng) < kTop {
		rc.normalize()
	}
}

// norm is normalize with the common case, nothing to do, inlined: 7z
// needs bytes only when the range is below 2^24, and for the carry-less
// decoder a range of at least 2^24 needs them only when the top byte of
// low would stay.
func (rc *rangeDecoder) norm() {
	if rc.rng < kTop || (rc.rar && rc.low^(rc.low+rc.rng) < kTop) {
		rc.normalize()
	}
}

// threshold scales the range by total and returns the cumulative count
// the code falls on. The caller has checked total <= rng.
func (rc *rangeDecoder) threshold(total uint32) uint32 {
	rc.rng /= total
	return rc.code / rc.rng
}

// decode consumes the interval [start, start+size) (in units of the last
// threshold) without normalising.
func (rc *rangeDecoder) decode(start, size uint32) {
	start *= rc.rng
	rc.low += start
	rc.code -= start
	rc.rng *= size
}

// decodeSymbol decodes one symbol with the model and range decoder rc.
// It returns the byte, symEnd or symError. Read errors are left in rc.err.
func (m *Model) decodeSymbol(rc *rangeDecoder) int {
	mem := m.mem
	mc := m.minContext
	ctx := ctxAt(mem, mc)
	if ns := uint32(ctx[0]) | uint32(ctx[1])<<8; ns != 1 {
		summFreq := uint32(ctx[2]) | uint32(ctx[3])<<8
		s := binary.LittleEndian.Uint32(ctx[4:])
		st := statesAt(mem, s, ns)
		if summFreq > rc.rng || summFreq == 0 {
			return symError
		}
		count := rc.threshold(summFreq)
		hiCnt := count
		f := uint32(st[1])
		if count < f {
			rc.decode(0, f)
			rc.norm()
			m.foundState = s
			sym := st[0] // read before the update: a restart rewrites it
			m.update1_0()
			return int(sym)
		}
		count -= f
		m.prevSuccess = 0
		for i := stateSize; i < len(st); i += stateSize {
			f = uint32(st[i+1])
			if count < f {
				rc.decode(hiCnt-count, f)
				rc.norm()
				m.foundState = s + uint32(i)
				sym := st[i]
				m.update1()
				return int(sym)
			}
			count -= f
		}
		if hiCnt >= summFreq {
			return symError
		}
		hiCnt -= count
		rc.decode(hiCnt, summFreq-hiCnt)
		m.hiBitsFlag = hiBits3(uint32(mem[m.foundState]))
		m.mask = noMask
		nm := uint32(0)
		for i := 0; i < len(st); i += stateSize {
			nm += uint32(m.mask[st[i]] & 1)
			m.mask[st[i]] = 0
		}
		m.nMasked = nm
	} else {
		s := oneState(mc)
		m.hiBitsFlag = hiBits3(uint32(mem[m.foundState]))
		f := uint32(mem[s+1])
		col := m.prevSuccess +
			uint32((m.runLength>>26)&0x20) +
			uint32(ns2BSIndx[(get16(mem, binary.LittleEndian.Uint32(ctx[8:]))-1)&0xFF]) +
			hiBits4(uint32(mem[s])) +
			m.hiBitsFlag
		prob := &m.binSumm[(f-1)&127][col&63]
		pr := uint32(*prob)
		size0 := (rc.rng >> 14) * pr
		pr -= (pr + 1<<(periodBits-2)) >> periodBits // PPMD_UPDATE_PROB_1
		if rc.code < size0 {
			*prob = uint16(pr + 1<<intBits)
			rc.rng = size0
			rc.norm()
			sym := mem[s]
			if f < 128 {
				mem[s+1] = byte(f + 1)
			}
			m.foundState = s
			m.prevSuccess = 1
			m.runLength++
			c := m.successor(s)
			if m.orderFall == 0 && c > m.text {
				m.minContext, m.maxContext = c, c
			} else {
				m.updateModel()
			}
			return int(sym)
		}
		*prob = uint16(pr)
		m.initEsc = uint32(expEscape[pr>>10])
		if rc.rar {
			rc.low += size0
			rc.code -= size0
			rc.rng = (rc.rng &^ (binScale - 1)) - size0
		} else {
			rc.code -= size0
			rc.rng -= size0
		}
		m.mask = noMask
		m.mask[mem[s]] = 0
		m.nMasked = 1
		m.prevSuccess = 0
	}

	for {
		rc.norm()
		ctx := ctxAt(mem, m.minContext)
		numMasked := ctx.numStats()
		var mc uint32
		for {
			m.orderFall++
			mc = ctx.suffix()
			if mc == 0 {
				return symEnd
			}
			ctx = ctxAt(mem, mc)
			if ctx.numStats() != numMasked {
				break
			}
		}
		s := ctx.stats()
		st := statesAt(mem, s, ctx.numStats())
		prev := m.minContext
		m.minContext = mc
		sp, escFreq := m.makeEscFreq(ctx, numMasked)
		i := notBig
		if len(st) >= bigMin*stateSize {
			i = m.bigSymbol(rc, st, mc, prev, numMasked, sp, escFreq)
		}
		if i == notBig {
			i = rc.maskedSymbol(st, &m.mask, sp, escFreq, &m.nMasked)
		}
		if i < 0 {
			if i == symError {
				return symError
			}
			continue // escaped: st is masked now
		}
		m.foundState = s + uint32(i)
		sym := st[i]
		m.update2()
		return int(sym)
	}
}

// escaped is maskedSymbol's result when it decoded another escape.
const escaped = -1

// maskBlock is the number of states per partial sum in maskedSymbol: the
// walk that finds the decoded state skips whole blocks by their sums and
// then steps through at most one block.
const maskBlock = 16

// maskedSymbol decodes the symbol of a context reached by escaping, whose
// states are st: the symbols of the contexts escaped from are masked
// out, and sp's estimate escFreq is the frequency of escaping again. It
// returns the offset in st of the state decoded, escaped (then st's
// symbols are masked too, *nMasked counts the newly masked ones, and the
// caller goes on to the suffix) or symError. The SEE context learns from
// the outcome.
//
// One pass sums the unmasked frequencies, two states per 64-bit load
// (bytes 0,1 and 6,7 of a state pair are the symbols and frequencies),
// and records the running sum at the start of every block of maskBlock
// states, so finding the decoded state does not walk the whole vector
// again (the order-0 context has 256 states, and incompressible data
// escapes to it for nearly every byte).
func (rc *rangeDecoder) maskedSymbol(st []byte, mask *[256]uint8, sp *see, escFreq uint32, nMasked *uint32) int {
	if len(st) > 256*stateSize { // cannot happen: at most 256 symbols
		return symError
	}
	var part [256 / maskBlock]uint32 // part[b]: the sum before block b
	hiCnt := uint32(0)
	head := 0 // an odd state first, so the blocks hold pairs
	if len(st)%(2*stateSize) != 0 {
		hiCnt = uint32(st[1] & mask[st[0]])
		head = stateSize
	}
	part[0] = hiCnt
	sum, nb := maskedSums(st[head:], mask, &part)
	hiCnt += sum
	freqSum := escFreq + hiCnt
	if freqSum > rc.rng || freqSum == 0 {
		return symError
	}
	count := rc.threshold(freqSum)
	if count < hiCnt {
		// Find the state holding count, skipping the blocks below it;
		// low is the sum of the states before i.
		i, low := 0, uint32(0)
		if count >= part[0] {
			b := max(nb-1, 0)
			for b > 0 && part[b&(256/maskBlock-1)] > count {
				b--
			}
			i, low = head+b*maskBlock*stateSize, part[b&(256/maskBlock-1)]
		}
		var f uint32
		for ; i < len(st); i += stateSize {
			f = uint32(st[i+1] & mask[st[i]])
			if count-low < f {
				break
			}
			low += f
		}
		if i >= len(st) { // cannot happen: count < hiCnt
			return symError
		}
		rc.decodeUnmasked(sp, low, f)
		return i
	}
	if count >= freqSum {
		return symError
	}
	rc.decode(hiCnt, freqSum-hiCnt)
	sp.summ += uint16(freqSum)
	nm := *nMasked
	for i := 0; i < len(st); i += stateSize {
		nm += uint32(mask[st[i]] & 1)
		mask[st[i]] = 0
	}
	*nMasked = nm
	return escaped
}

// decodeUnmasked consumes the interval [low, low+f) of the state decoded
// after escapes, and the SEE context sp, whose escape estimate was not
// used, adapts.
func (rc *rangeDecoder) decodeUnmasked(sp *see, low, f uint32) {
	rc.decode(low, f)
	rc.norm()
	if sp.shift < periodBits {
		sp.count--
		if sp.count == 0 {
			sp.summ <<= 1
			sp.count = uint8(3 << sp.shift)
			sp.shift++
		}
	}
}

// maskedSums sums the masked frequencies of the states st (an even
// number of them) and records in part[b] the sum before block b (plus
// part[0], the sum of what came before st); nb is the number of blocks
// started. One leaf function for the whole vector, with the block body
// written out, so the sum stays in registers: a call per block spilled
// the caller's state around every 16 states.
func maskedSums(st []byte, mask *[256]uint8, part *[256 / maskBlock]uint32) (sum uint32, nb int) {
	le := binary.LittleEndian
	base := part[0]
	i := 0
	for ; i+maskBlock*stateSize <= len(st); i += maskBlock * stateSize {
		part[nb&(256/maskBlock-1)] = base + sum
		nb++
		b := (*[maskBlock * stateSize]byte)(st[i:])
		s0 := maskedPair(le.Uint64(b[0:]), mask) + maskedPair(le.Uint64(b[12:]), mask)
		s1 := maskedPair(le.Uint64(b[24:]), mask) + maskedPair(le.Uint64(b[36:]), mask)
		s2 := maskedPair(le.Uint64(b[48:]), mask) + maskedPair(le.Uint64(b[60:]), mask)
		s3 := maskedPair(le.Uint64(b[72:]), mask) + maskedPair(le.Uint64(b[84:]), mask)
		sum += s0 + s1 + s2 + s3
	}
	if i < len(st) {
		part[nb&(256/maskBlock-1)] = base + sum
		nb++
		for ; i+2*stateSize <= len(st); i += 2 * stateSize {
			sum += maskedPair(le.Uint64(st[i:]), mask)
		}
	}
	return sum, nb
}

// maskedPair is the masked frequency sum of the two states whose first 8
// bytes are x: symbol and frequency in bytes 0,1 and 6,7.
func maskedPair(x uint64, mask *[256]uint8) uint32 {
	// A mask byte is 0 or 0xFF, so the AND also drops the bits above the
	// frequency.
	return uint32(x>>8)&uint32(mask[byte(x)]) + uint32(x>>56)&uint32(mask[byte(x>>48)])
}

// noMask is the exclusion mask with no symbol excluded.
var noMask = func() (a [256]uint8) {
	for i := range a {
		a[i] = 0xFF
	}
	return
}()

// Block sums of big contexts. Incompressible data escapes for most bytes
// to an order-1 or the order-0 context holding 100 to 256 states with
// only the few symbols of the context escaped from masked, and summing
// every state under the mask was a third of the decode. A small
// direct-mapped cache keeps, for contexts of at least bigMin states,
// each symbol's frequency and position and the frequency sum of every
// block of maskBlock states, updated by every step that changes a
// frequency, swaps two states or appends one (update1, update1_0,
// update2 and updateModel); rescale drops its context's entry and
// restart all of them. The masked decode then subtracts the masked
// symbols' frequencies from the block sums and walks one block, and the
// suffix steps find a symbol's state without a walk.
const (
	bigMin   = 64  // fewest states of a context with block sums
	bigSlots = 512 // cache entries, indexed by the context's unit
)

type bigSums struct {
	ctx, gen uint32 // the entry holds context ctx if gen is the model's
	sum      [256 / maskBlock]uint32
	total    uint32       // the sum of sum
	has      [4]uint64    // the context's symbols, one bit each
	sym      [256]symInfo // sym[s]: where symbol s's state is, and its frequency
}

// symInfo is one symbol's entry in bigSums: the index of its state in
// the low byte, its frequency (0 if absent) in the high one. Position and
// frequency sit side by side: the masked decode looks both up for symbols
// in random order, and separate arrays cost two cache misses per symbol;
// one uint16 is one load where a two-byte struct compiled to two, each
// with its own address arithmetic.
type symInfo uint16

func newSymInfo(pos, freq uint32) symInfo { return symInfo(uint8(pos)) | symInfo(uint8(freq))<<8 }
func (si symInfo) pos() uint32            { return uint32(si & 0xFF) }
func (si symInfo) freq() uint32           { return uint32(si >> 8) }

// addFreq adds d to the frequency, wrapping at 8 bits like the arena's.
func (si *symInfo) addFreq(d uint32) { *si += symInfo(d << 8) }
func (si *symInfo) setPos(p uint32)  { *si = *si&^0xFF | symInfo(uint8(p)) }

// bigOf returns the valid cache entry of context c, or nil.
func (m *Model) bigOf(c uint32) *bigSums {
	e := &m.big[(c/unitSize)%bigSlots]
	if e.ctx == c && e.gen == m.gen {
		return e
	}
	return nil
}

// add records that the frequency of state s (of the states at stats)
// grew by d.
func (e *bigSums) add(mem []byte, stats, s, d uint32) {
	e.sum[((s-stats)/stateSize/maskBlock)&(256/maskBlock-1)] += d
	e.total += d
	e.sym[mem[s]].addFreq(d)
}

// swapDown records that state s (of the states at stats) is about to
// trade places with the state before it.
func (e *bigSums) swapDown(mem []byte, stats, s uint32) {
	p := (s - stats) / stateSize
	a, b := mem[s], mem[s-stateSize]
	e.sym[a].setPos(p - 1)
	e.sym[b].setPos(p)
	if p%maskBlock == 0 {
		hi := (p / maskBlock) & (256/maskBlock - 1)
		d := uint32(mem[s-stateSize+1]) - uint32(mem[s+1])
		e.sum[hi] += d
		e.sum[(hi-1)&(256/maskBlock-1)] -= d
	}
}

// state returns the offset of sym's state among the n states at stats,
// which hold it.
func (e *bigSums) state(mem []byte, stats, n uint32, sym byte) uint32 {
	if p := e.sym[sym].pos(); p < n {
		if s := stats + p*stateSize; mem[s] == sym {
			return s
		}
	}
	return findState(mem, stats, sym) // cannot happen: pos is exact
}

// build fills e for context c with the states st.
func (e *bigSums) build(c, gen uint32, st []byte) {
	e.ctx, e.gen = c, gen
	e.sum = [256 / maskBlock]uint32{}
	e.total = 0
	e.has = [4]uint64{}
	e.sym = [256]symInfo{}
	for i := 0; i+stateSize <= len(st) && i < 256*stateSize; i += stateSize {
		sym, f := st[i], st[i+1]
		e.sym[sym] = newSymInfo(uint32(i/stateSize), uint32(f))
		e.has[sym>>6] |= 1 << (sym & 63)
		e.sum[(i/stateSize/maskBlock)&(256/maskBlock-1)] += uint32(f)
		e.total += uint32(f)
	}
}

// notBig is bigSymbol's result when the block sums cannot be used; the
// caller decodes with maskedSymbol.
const notBig = -3

// bigSymbol is maskedSymbol for a context mc of at least bigMin states
// st reached by escaping from prev, whose numMasked symbols are masked:
// by the model's inclusion (a suffix holds every symbol of the contexts
// below it) they are all the masked ones, which the count of masked
// symbols confirms before the sums are used.
func (m *Model) bigSymbol(rc *rangeDecoder, st []byte, mc, prev, numMasked uint32, sp *see, escFreq uint32) int {
	if m.nMasked != numMasked || len(st) > 256*stateSize {
		return notBig
	}
	mem := m.mem
	e := &m.big[(mc/unitSize)%bigSlots]
	if e.ctx != mc || e.gen != m.gen {
		e.build(mc, m.gen, st)
	}
	// Block b's unmasked sum is base[b] - sub[b].
	var part, sub [256 / maskBlock]uint32
	base := &e.sum
	hiCnt := uint32(0)
	n := uint32(len(st) / stateSize)
	var pe *bigSums
	if numMasked >= bigMin {
		pe = m.bigOf(prev)
	}
	if pe != nil && n-numMasked < numMasked {
		// prev is big too (an order-1 context escaping to the order-0
		// one): fewer symbols are left than masked, so add up those,
		// the symbols of mc that prev lacks. prev's must all be in mc.
		var left [4]uint64
		out := uint64(0)
		for w := range left {
			out |= pe.has[w] &^ e.has[w]
			left[w] = e.has[w] &^ pe.has[w]
		}
		if out != 0 { // cannot happen: a suffix holds its contexts' symbols
			return notBig
		}
		for w, x := range left {
			for ; x != 0; x &= x - 1 {
				sym := byte(w<<6 | bits.TrailingZeros64(x))
				si := e.sym[sym]
				f := si.freq()
				part[si.pos()/maskBlock] += f
				hiCnt += f
			}
		}
		base = &part
	} else {
		var pst []byte
		if numMasked == 1 {
			pst = mem[prev+2 : prev+2+stateSize]
		} else {
			ps := get32(mem, prev+4)
			if uint64(ps)+uint64(numMasked)*stateSize > uint64(len(mem)) {
				return notBig
			}
			pst = statesAt(mem, ps, numMasked)
		}
		// Subtract the masked symbols' frequencies from the total; the
		// block sums are corrected only as far as the walk below goes.
		// One absent from mc (frequency 0 in e) cannot happen (a suffix
		// holds its contexts' symbols). Nor can a block go negative,
		// but in a crafted model a symbol repeated in prev could make
		// one wrap: the walk then stops in that block, whose walk is
		// bounded and decodes some unmasked symbol or symError.
		absent, subSum := uint32(0), uint32(0)
		syms := &e.sym // hoisted: the compiler recomputes e.sym's address per use
		for k := 0; k < len(pst); k += stateSize {
			sym := pst[k]
			si := syms[sym]
			f := si.freq()
			absent |= f - 1 // bit 31 set when f is 0
			sub[si.pos()/maskBlock] += f
			subSum += f
		}
		if absent>>31 != 0 || subSum > e.total {
			return notBig
		}
		hiCnt = e.total - subSum
	}
	freqSum := escFreq + hiCnt
	if freqSum > rc.rng || freqSum == 0 {
		return symError
	}
	count := rc.threshold(freqSum)
	if count < hiCnt {
		low := uint32(0)
		b := 0
		for ; b < len(sub)-1; b++ {
			d := base[b] - sub[b]
			if count-low < d {
				break
			}
			low += d
		}
		i := b * maskBlock * stateSize
		if i+maskBlock*stateSize <= len(st) {
			// A whole block: walked through an array, without bounds checks.
			blk := (*[maskBlock * stateSize]byte)(st[i:])
			for k := 0; k < len(blk); k += stateSize {
				f := uint32(blk[k+1] & m.mask[blk[k]])
				if count-low < f {
					rc.decodeUnmasked(sp, low, f)
					return i + k
				}
				low += f
			}
			return symError // cannot happen: count < hiCnt
		}
		for ; i+1 < len(st); i += stateSize {
			f := uint32(st[i+1] & m.mask[st[i]])
			if count-low < f {
				rc.decodeUnmasked(sp, low, f)
				return i
			}
			low += f
		}
		return symError // cannot happen: count < hiCnt
	}
	if count >= freqSum {
		return symError
	}
	rc.decode(hiCnt, freqSum-hiCnt)
	sp.summ += uint16(freqSum)
	nm := m.nMasked
	for i := 0; i < len(st); i += stateSize {
		nm += uint32(m.mask[st[i]] & 1)
		m.mask[st[i]] = 0
	}
	m.nMasked = nm
	return escaped
}
