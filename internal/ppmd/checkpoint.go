package ppmd

import (
	"encoding/binary"
	"io"
	"unsafe"

	"github.com/go-unarc/unarc/internal/errs"
)

// Decoder checkpoints (7z PPMd7 folders, ZIP PPMd8 entries). Between two
// symbols the decoder's whole state is the model and the range decoder:
//
//   - the range decoder's Range, Code and Low, and its input offset;
//   - the model's scalar fields (contexts, found state, order fall,
//     run length, escape and success state), its SEE contexts and its
//     binary-context probabilities (BinSumm: 16 KiB for PPMd7, 3.4 KiB
//     for PPMd8);
//   - the sub-allocator (free lists, their counts, the glue countdown,
//     the text/units boundaries) and the used parts of the arena: the
//     text area [0, Text), the units below the free gap [UnitsStart,
//     LoUnit) and above it [HiUnit, end). The gaps [Text, UnitsStart)
//     and [LoUnit, HiUnit) hold nothing the model reads (memory is
//     written before it is used, as the reference's malloc'd arena
//     requires); they are zeroed on restore. The 6 bytes at the found
//     state are kept too: after a PPMd8 cut-off it may point into a gap
//     and its symbol is read once more.
//
// So a checkpoint costs up to the model's memory size (MemSize: 16 MiB
// for 7-Zip's -mx5 7z PPMd, 1 to 256 MiB for ZIP) once the arena has
// filled, plus about 17 KiB: few fit in a checkpoint cache bounded by
// MaxMemory, whose least recently used go first.
//
// A state can come from an index, so ResetAt trusts none of it: the
// scalars must fit the stream's order and memory, the boundaries the
// arena, and the arena must be a consistent heap: every free block in
// range, of its class and disjoint from every other; every context
// reachable from MinContext and MaxContext (through suffixes and
// successors) in the units area with 1..256 states in a block of their
// class that overlaps nothing else; every successor a context, none, or
// a text position; every suffix chain ending at the root within
// MaxOrder+1 steps. A state that fails is ErrCorrupt. Decoding from a
// consistent heap whose statistics are still not what an encoder could
// have produced can index outside a state vector: the reader a restored
// decoder is read through (Guarded) turns such a fault into ErrCorrupt.
//
// State layout, version 1, little-endian: u8 version, u8 flavour (7,
// 8); u32 Range, Code, Low; u32 MinContext, MaxContext, FoundState,
// OrderFall, InitEsc, PrevSuccess, MaxOrder, HiBitsFlag, RestoreMethod,
// AlignOffset, Size; i32 RunLength, InitRL; u32 GlueCount, LoUnit,
// HiUnit, Text, UnitsStart, FreeList[38], Stamps[38]; the 6 bytes at
// FoundState; the SEE contexts (DummySee first; u16 Summ, u8 Shift, u8
// Count each), BinSumm (u16 each); then the three arena parts.
const (
	checkpointVersion = 1
	cpScalars         = 2 + 3*4 + 11*4 + 2*4 + 5*4 + 2*numIndexes*4 + stateSize
)

// CheckpointOverhead bounds what a state holds besides the used arena:
// the scalars, the SEE contexts and BinSumm of either model.
const CheckpointOverhead = cpScalars + 4*(1+24*32) + 2*128*64

// ZipStateFits reports whether a ReaderZip state is no larger than the
// model memory it declares allows (ResetAt checks that memory against
// the stream's header).
func ZipStateFits(state []byte) bool {
	_, _, mem, err := stateHeader(state, true)
	return err == nil && mem <= 256<<20 && int64(len(state)) <= int64(mem)+3+CheckpointOverhead
}

// vars points at the fields of a PPMd7 or PPMd8 model a checkpoint holds.
type vars struct {
	u                                   *units
	eight                               bool
	minContext, maxContext, foundState  *uint32
	orderFall, initEsc, prevSuccess     *uint32
	maxOrder, hiBitsFlag, restoreMethod *uint32
	alignOffset, size                   *uint32
	runLength, initRL                   *int32
	dummySee                            *see
	see                                 []see
	binSumm                             []uint16
}

func (m *Model) vars() vars {
	var none1, none2 uint32
	return vars{u: &m.units, minContext: &m.minContext, maxContext: &m.maxContext, foundState: &m.foundState,
		orderFall: &m.orderFall, initEsc: &m.initEsc, prevSuccess: &m.prevSuccess, maxOrder: &m.maxOrder,
		hiBitsFlag: &m.hiBitsFlag, restoreMethod: &none1, alignOffset: &none2, size: &m.size,
		runLength: &m.runLength, initRL: &m.initRL, dummySee: &m.dummySee,
		see:     unsafe.Slice(&m.see[0][0], len(m.see)*len(m.see[0])),
		binSumm: unsafe.Slice(&m.binSumm[0][0], len(m.binSumm)*len(m.binSumm[0]))}
}

func (m *model8) vars() vars {
	var none uint32
	return vars{u: &m.units, eight: true, minContext: &m.minContext, maxContext: &m.maxContext, foundState: &m.foundState,
		orderFall: &m.orderFall, initEsc: &m.initEsc, prevSuccess: &m.prevSuccess, maxOrder: &m.maxOrder,
		hiBitsFlag: &none, restoreMethod: &m.restoreMethod, alignOffset: &m.alignOffset, size: &m.size,
		runLength: &m.runLength, initRL: &m.initRL, dummySee: &m.dummySee,
		see:     unsafe.Slice(&m.see[0][0], len(m.see)*len(m.see[0])),
		binSumm: unsafe.Slice(&m.binSumm[0][0], len(m.binSumm)*len(m.binSumm[0]))}
}

// stateSize is the size of the state append writes now.
func (v *vars) stateSize() int {
	u := v.u
	return cpScalars + 4*(1+len(v.see)) + 2*len(v.binSumm) +
		int(u.text) + int(u.loUnit-u.unitsStart) + len(u.mem) - int(u.hiUnit)
}

func (v *vars) append(dst []byte, rc *rangeDecoder) []byte {
	le := binary.LittleEndian
	fl := byte(7)
	if v.eight {
		fl = 8
	}
	u := v.u
	dst = append(dst, checkpointVersion, fl)
	for _, x := range []uint32{rc.rng, rc.code, rc.low,
		*v.minContext, *v.maxContext, *v.foundState, *v.orderFall, *v.initEsc, *v.prevSuccess,
		*v.maxOrder, *v.hiBitsFlag, *v.restoreMethod, *v.alignOffset, *v.size,
		uint32(*v.runLength), uint32(*v.initRL), u.glueCount, u.loUnit, u.hiUnit, u.text, u.unitsStart} {
		dst = le.AppendUint32(dst, x)
	}
	for _, x := range u.freeList {
		dst = le.AppendUint32(dst, x)
	}
	for _, x := range u.stamps {
		dst = le.AppendUint32(dst, x)
	}
	var fs [stateSize]byte
	if f := uint64(*v.foundState); f+stateSize <= uint64(len(u.mem)) {
		copy(fs[:], u.mem[f:])
	}
	dst = append(dst, fs[:]...)
	dst = appendSee(dst, *v.dummySee)
	for _, s := range v.see {
		dst = appendSee(dst, s)
	}
	for _, x := range v.binSumm {
		dst = le.AppendUint16(dst, x)
	}
	dst = append(dst, u.mem[:u.text]...)
	dst = append(dst, u.mem[u.unitsStart:u.loUnit]...)
	return append(dst, u.mem[u.hiUnit:]...)
}

func appendSee(dst []byte, s see) []byte {
	return append(dst, byte(s.summ), byte(s.summ>>8), s.shift, s.count)
}

// cpReader reads a state. (The sticky reader idiom of rar's cursor too;
// kept here: a state is read once per resume, in this package's layout.)
type cpReader struct {
	b  []byte
	ok bool
}

func (r *cpReader) u32() uint32 {
	if len(r.b) < 4 {
		r.ok = false
		return 0
	}
	x := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return x
}

func (r *cpReader) bytes(n int) []byte {
	if n < 0 || len(r.b) < n {
		r.ok = false
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *cpReader) see() see {
	p := r.bytes(4)
	if p == nil {
		return see{}
	}
	return see{summ: uint16(p[0]) | uint16(p[1])<<8, shift: p[2], count: p[3]}
}

var errState = errs.Corrupt("ppmd: checkpoint state does not fit the stream")

// stateHeader reads the fields a caller needs before the arena is sized:
// MaxOrder, RestoreMethod and Size.
func stateHeader(st []byte, eight bool) (order, restore, size uint32, err error) {
	fl := byte(7)
	if eight {
		fl = 8
	}
	if len(st) < cpScalars || st[0] != checkpointVersion || st[1] != fl {
		return 0, 0, 0, errState
	}
	le := binary.LittleEndian
	return le.Uint32(st[2+9*4:]), le.Uint32(st[2+11*4:]), le.Uint32(st[2+13*4:]), nil
}

// restore loads state st into the model, whose arena (len(u.mem)) and
// size, order, restore method and alignment are set already, and into
// rc; then it checks the heap (see the top of this file).
func (v *vars) restore(st []byte, rc *rangeDecoder) error {
	u := v.u
	r := cpReader{b: st, ok: true}
	if p := r.bytes(2); p == nil || p[0] != checkpointVersion {
		return errState
	}
	rng, code, low := r.u32(), r.u32(), r.u32()
	var f [18]uint32
	for i := range f {
		f[i] = r.u32()
	}
	var fl, stamps [numIndexes]uint32
	for i := range fl {
		fl[i] = r.u32()
	}
	for i := range stamps {
		stamps[i] = r.u32()
	}
	fsBytes := r.bytes(stateSize)
	minC, maxC, fs, of, ie, ps := f[0], f[1], f[2], f[3], f[4], f[5]
	mo, hb, rm, al, sz := f[6], f[7], f[8], f[9], f[10]
	rl, irl, gc, lo, hi, text, us := int32(f[11]), int32(f[12]), f[13], f[14], f[15], f[16], f[17]
	n := uint32(len(u.mem))
	if !r.ok || mo != *v.maxOrder || rm != *v.restoreMethod || al != *v.alignOffset || sz != *v.size ||
		!v.eight && hb > 0xFF || rng == 0 {
		return errState
	}
	if text < al || text > us || us > lo || lo > hi || hi > n || (n-us)%unitSize != 0 || (n-lo)%unitSize != 0 || (n-hi)%unitSize != 0 {
		return errs.Corrupt("ppmd: checkpoint arena bounds out of range")
	}
	if uint64(fs)+stateSize > uint64(n) {
		return errs.Corrupt("ppmd: checkpoint found state outside the arena")
	}
	*v.dummySee = r.see()
	for i := range v.see {
		v.see[i] = r.see()
	}
	for i := range v.binSumm {
		p := r.bytes(2)
		if p == nil {
			return errState
		}
		v.binSumm[i] = uint16(p[0]) | uint16(p[1])<<8
	}
	t, mid, top := r.bytes(int(text)), r.bytes(int(lo-us)), r.bytes(int(n-hi))
	if !r.ok || len(r.b) != 0 {
		return errState
	}
	copy(u.mem, t)
	clear(u.mem[text:us])
	copy(u.mem[us:], mid)
	clear(u.mem[lo:hi])
	copy(u.mem[hi:], top)
	copy(u.mem[fs:], fsBytes) // may be in a gap: the same bytes elsewhere
	rc.rng, rc.code, rc.low = rng, code, low
	*v.minContext, *v.maxContext, *v.foundState = minC, maxC, fs
	*v.orderFall, *v.initEsc, *v.prevSuccess, *v.hiBitsFlag = of, ie, ps, hb
	*v.runLength, *v.initRL = rl, irl
	u.glueCount, u.loUnit, u.hiUnit, u.text, u.unitsStart = gc, lo, hi, text, us
	u.freeList, u.stamps = fl, stamps
	clear(u.symPos[:])
	return v.checkHeap()
}

// checkHeap checks that the arena is a consistent heap (the top of this
// file says what that means).
func (v *vars) checkHeap() error {
	u := v.u
	mem := u.mem
	n := uint32(len(mem))
	us := u.unitsStart
	nUnits := (n - us) / unitSize
	used := make([]uint64, nUnits/64+1) // units taken by a free block, a context or a state vector
	isCtx := make([]uint64, nUnits/64+1)
	bad := func(what string) error { return errs.Corrupt("ppmd: checkpoint %s", what) }
	// block reports whether nu units at p lie in the units area outside
	// the gap, and marks them; false when any is taken.
	block := func(p, nu uint32) bool {
		if p < us || (p-us)%unitSize != 0 {
			return false
		}
		end := uint64(p) + uint64(nu)*unitSize
		if end > uint64(n) || u.loUnit < u.hiUnit && p < u.hiUnit && end > uint64(u.loUnit) {
			return false // past the end or into the gap (an empty gap joins the two sides)
		}
		k := (p - us) / unitSize
		for j := k; j < k+nu; j++ {
			if used[j/64]&(1<<(j%64)) != 0 {
				return false
			}
		}
		for j := k; j < k+nu; j++ {
			used[j/64] |= 1 << (j % 64)
		}
		return true
	}
	for i := uint32(0); i < numIndexes; i++ {
		nu := i2u(i)
		count := uint32(0)
		for node := u.freeList[i]; node != 0; count++ {
			if !block(node, nu) {
				return bad("free list out of range or overlapping")
			}
			if v.eight {
				if u.u32(node) != emptyNode8 || u.u32(node+8) != nu {
					return bad("free block not stamped")
				}
				node = u.u32(node + 4)
			} else {
				node = u.u32(node)
			}
		}
		if v.eight && count != u.stamps[i] {
			return bad("free block count")
		}
	}
	var work []uint32
	push := func(c uint32) bool {
		// In 64 bits: a context near 2^32 would wrap c+unitSize below n.
		if c < us || (c-us)%unitSize != 0 || uint64(c)+unitSize > uint64(n) || c >= u.loUnit && c < u.hiUnit {
			return false
		}
		k := (c - us) / unitSize
		if isCtx[k/64]&(1<<(k%64)) != 0 {
			return true
		}
		if !block(c, 1) {
			return false
		}
		isCtx[k/64] |= 1 << (k % 64)
		work = append(work, c)
		return true
	}
	successor := func(s uint32) bool {
		x := u.u32(s + 2)
		switch {
		case x == 0:
			return true
		case v.eight && x < us, !v.eight && x <= u.text:
			return true // a text position
		case x < us:
			return false
		}
		return push(x)
	}
	if !push(*v.minContext) || !push(*v.maxContext) {
		return bad("context out of range")
	}
	for len(work) > 0 {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		var ns uint32
		if v.eight {
			ns = uint32(mem[c]) + 1
		} else {
			ns = u.u16(c)
			if ns == 0 || ns > 256 {
				return bad("context with a bad state count")
			}
		}
		if ns == 1 {
			if !successor(c + 2) {
				return bad("successor out of range")
			}
		} else {
			st := u.u32(c + 4)
			if !block(st, i2u(u2i((ns+1)/2))) {
				return bad("state vector out of range or overlapping")
			}
			for k := uint32(0); k < ns; k++ {
				if !successor(st + k*stateSize) {
					return bad("successor out of range")
				}
			}
		}
		if s := u.u32(c + 8); s != 0 && !push(s) {
			return bad("suffix out of range")
		}
	}
	// Every suffix chain ends at the root, without a cycle. The contexts
	// are the bits of isCtx (in any order; a list of them would cost
	// four bytes per context on top of what Overhead counts).
	depth := make([]uint8, nUnits)
	var path []uint32
	for k := range nUnits {
		if isCtx[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		c := us + k*unitSize
		path = path[:0]
		x := c
		for x != 0 && depth[(x-us)/unitSize] == 0 {
			if len(path) > MaxOrder+1 {
				return bad("suffix chain too long or cyclic")
			}
			path = append(path, x)
			x = u.u32(x + 8)
		}
		d := 0
		if x != 0 {
			d = int(depth[(x-us)/unitSize])
		}
		if d+len(path) > MaxOrder+2 {
			return bad("suffix chain too long")
		}
		for j := len(path) - 1; j >= 0; j-- {
			d++
			depth[(path[j]-us)/unitSize] = uint8(d)
		}
	}
	return nil
}

// guard reads r, turning a fault of a model restored from a state that
// passed the checks but is still not one an encoder produces into
// ErrCorrupt (set as *sticky so later reads fail too).
func guard(r io.Reader, p []byte, sticky *error) (n int, err error) {
	defer func() {
		if x := recover(); x != nil {
			*sticky = errs.Corrupt("ppmd: model restored from a checkpoint is inconsistent")
			n, err = 0, *sticky
		}
	}()
	return r.Read(p)
}

// ---- Reader7z ----

// CanCheckpoint reports whether Checkpoint may be taken now: between two
// symbols of a stream of known size, before its end, with no error.
func (z *Reader7z) CanCheckpoint() bool {
	return z.err == nil && z.m != nil && z.size >= 0 && z.left > 0 && z.rc.ip == 0 && z.rc.err == nil
}

// Total returns the output decoded so far (from the stream's start).
func (z *Reader7z) Total() int64 { return z.size - z.left }

// CheckpointSize is the size of the state Checkpoint appends now.
func (z *Reader7z) CheckpointSize() int {
	v := z.m.vars()
	return v.stateSize()
}

// Checkpoint appends the state to dst (see CanCheckpoint) and returns it
// with the output offset and the input offset (bytes of the stream,
// range coder header included). ResetAt7z resumes from it.
func (z *Reader7z) Checkpoint(dst []byte) (state []byte, out, in int64) {
	v := z.m.vars()
	return v.append(dst, &z.rc), z.Total(), z.rc.pos + int64(z.rc.ip)
}

// ResetAt7z makes z resume a stream of the given order, memory and size
// from a checkpoint: r must deliver the stream's input from byte in.
// The arena (mem bytes) is allocated here, so bound mem first. A state
// that does not fit is ErrCorrupt. Read z through Guarded.
func (z *Reader7z) ResetAt7z(r io.Reader, order int, mem uint32, size int64, state []byte, out, in int64) error {
	if order < MinOrder || order > MaxOrder || mem < MinMemory || mem > MaxMemory {
		z.err = errs.Unsupported("ppmd: order %d, memory %d", order, mem)
		return z.err
	}
	if size < 0 || out < 0 || out >= size || in < 5 {
		z.err = errState
		return z.err
	}
	if o, _, sz, err := stateHeader(state, false); err != nil || o != uint32(order) || sz != mem {
		z.err = errState
		return z.err
	}
	*z = Reader7z{m: z.m, bufr: z.bufr, order: order, mem: mem, left: size - out, size: size}
	z.rc.setSource(r, &z.bufr)
	if z.m == nil {
		z.m = modelPool.get()
	}
	if err := z.m.restoreState(order, mem, state, &z.rc); err != nil {
		z.err = err
		return err
	}
	z.rc.pos = in
	return nil
}

// restoreState sizes m's arena for a variant H model of order and mem
// bytes and loads state into it and rc (7z's ResetAt7z, RAR's Restore).
func (m *Model) restoreState(order int, mem uint32, state []byte, rc *rangeDecoder) error {
	m.useArena(int(mem))
	m.size, m.maxOrder, m.stamped = mem, uint32(order), false
	// The block-sum cache (big) describes the arena the model had: a new
	// generation drops every entry, as restart does.
	m.gen++
	v := m.vars()
	return v.restore(state, rc)
}

// Guarded returns z as a reader that turns a fault of a model restored
// by ResetAt7z into ErrCorrupt.
func (z *Reader7z) Guarded() io.Reader { return guarded7z{z} }

type guarded7z struct{ z *Reader7z }

func (g guarded7z) Read(p []byte) (int, error) { return guard(g.z, p, &g.z.err) }

// ---- ReaderZip ----

// CanCheckpoint reports whether Checkpoint may be taken now: between two
// symbols of a stream of known size, before its end, with no error.
func (z *ReaderZip) CanCheckpoint() bool {
	return z.err == nil && z.m != nil && z.size >= 0 && z.left > 0 && z.rc.ip == 0 && z.rc.err == nil
}

// Total returns the output decoded so far.
func (z *ReaderZip) Total() int64 { return z.size - z.left }

// CheckpointSize is the size of the state Checkpoint appends now.
func (z *ReaderZip) CheckpointSize() int {
	v := z.m.vars()
	return v.stateSize()
}

// Checkpoint appends the state to dst (see CanCheckpoint) and returns it
// with the output offset and the input offset (bytes of the stream, the
// 2-byte header included). ResetAt resumes from it.
func (z *ReaderZip) Checkpoint(dst []byte) (state []byte, out, in int64) {
	v := z.m.vars()
	return v.append(dst, &z.rc), z.Total(), z.rc.pos + int64(z.rc.ip)
}

// ResetAt makes z resume a ZIP PPMd stream of size bytes whose 2-byte
// header is hdr from a checkpoint: r must deliver the stream from byte
// in. A model that needs more than maxMem (> 0) with its tables
// (Overhead) is ErrLimit before anything is allocated. A state that does not fit (another order, memory or
// restoration method than hdr's, say) is ErrCorrupt. Read z through
// Guarded.
func (z *ReaderZip) ResetAt(r io.Reader, hdr uint16, size, maxMem int64, state []byte, out, in int64) error {
	*z = ReaderZip{m: z.m, bufr: z.bufr, left: size - out, size: size}
	h, err := ParseZipHeader(hdr)
	if err != nil {
		z.err = err
		return err
	}
	if need := int64(h.Memory) + Overhead(int64(h.Memory)); maxMem > 0 && need > maxMem {
		z.err = errs.Limit("MaxMemory: ppmd8 model of %d bytes (%d with its tables) exceeds the limit %d", h.Memory, need, maxMem)
		return z.err
	}
	order, restore, mem, err := stateHeader(state, true)
	if err != nil || size < 0 || out < 0 || out >= size || in < 6 || order != uint32(h.Order) || restore != uint32(h.Restore) || mem != h.Memory {
		z.err = errState
		return z.err
	}
	z.hdr = h
	z.rc.setSource(r, &z.bufr)
	z.rc.rar = true
	if z.m == nil {
		z.m = model8Pool.get()
	}
	m := z.m
	align := (4 - h.Memory) & 3
	m.useArena(int(align) + int(h.Memory))
	m.stamped = true
	m.size, m.alignOffset, m.maxOrder, m.restoreMethod = h.Memory, align, uint32(h.Order), uint32(h.Restore)
	// A valid model's cut-off visits each context about once per pass
	// (a real one: 55 k calls for 87 k units); 16 per unit keeps a crafted
	// one linear in the model's memory (see cutBudget).
	m.cutBudget = 16*int(h.Memory/unitSize) + 1024
	v := m.vars()
	if err := v.restore(state, &z.rc); err != nil {
		z.err = err
		return err
	}
	z.rc.pos = in
	return nil
}

// Guarded returns z as a reader that turns a fault of a model restored
// by ResetAt into ErrCorrupt.
func (z *ReaderZip) Guarded() io.Reader { return guardedZip{z} }

type guardedZip struct{ z *ReaderZip }

func (g guardedZip) Read(p []byte) (int, error) { return guard(g.z, p, &g.z.err) }
