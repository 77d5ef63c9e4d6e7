package unpack29

import (
	"encoding/binary"
	"hash/crc32"
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarfilter"
)

// RarVM facts (unrar rarvm.hpp, unpack.hpp).
const (
	vmMemSize        = 0x40000 // filter blocks live in the VM's 256 KiB memory
	vmGlobalAddr     = 0x3C000 // R3 at start
	vmGlobalSize     = 0x2000
	vmFixedGlobal    = 0x40
	maxFilterDefs    = 1024 // MAX3_FILTERS
	maxPendingFilter = 8192 // MAX3_UNPACK_FILTERS
	maxCodeSize      = 0x10000
)

type filterKind uint8

const (
	filterE8 filterKind = iota + 1
	filterE8E9
	filterItanium
	filterDelta
	filterRGB
	filterAudio
)

// standardFilters identifies RAR 3.x's built-in filter programs by the
// length and CRC-32 of their VM code (unrar rarvm.cpp IsStandardFilter).
// RAR itself never emits any other program.
var standardFilters = [...]struct {
	length uint32
	crc    uint32
	kind   filterKind
}{
	{53, 0xad576887, filterE8},
	{57, 0x3cd7e57e, filterE8E9},
	{120, 0x3769893f, filterItanium},
	{29, 0x0e06077d, filterDelta},
	{149, 0x1c2c5dc8, filterRGB},
	{216, 0xbc85e701, filterAudio},
}

// filterDef is one program the stream has defined; later filters refer
// to it by index.
type filterDef struct {
	kind      filterKind
	lastLen   uint32 // block length of its last use (OldFilterLengths)
	execCount uint32
}

// pendingFilter is a filter to apply to output positions
// [start, start+length) once they are decoded.
type pendingFilter struct {
	start  int64
	length uint32
	kind   filterKind
	r      [7]uint32 // initial registers R0..R6
}

type filterState struct {
	defs  []filterDef
	queue []pendingFilter // sorted by start; queue[head:] pending
	head  int
	last  int // filter index used when a definition names none

	runs [filterAudio + 1]int // filters applied, by kind (tests look)

	memp  *[]byte // VM memory, from the pool on first use
	codep *[]byte // filter code being parsed
}

func (f *filterState) reset() {
	f.defs = f.defs[:0]
	f.queue = f.queue[:0]
	f.head = 0
	f.last = 0
}

// newEntry: unrar clears pending filters at each solid file (InitFilters30
// with Solid set) but keeps the definitions.
func (f *filterState) newEntry() {
	f.queue = f.queue[:0]
	f.head = 0
}

func (f *filterState) release() {
	if f.memp != nil {
		pool.Put(f.memp)
		f.memp = nil
	}
	if f.codep != nil {
		pool.Put(f.codep)
		f.codep = nil
	}
	f.reset()
}

func (f *filterState) codeBuf(n int) []byte {
	if f.codep == nil {
		f.codep = pool.Get(maxCodeSize + 8)
	}
	return (*f.codep)[:n]
}

func (f *filterState) mem() []byte {
	if f.memp == nil {
		f.memp = pool.Get(vmMemSize)
	}
	return (*f.memp)[:vmMemSize]
}

func (f *filterState) head0() *pendingFilter {
	if f.head < len(f.queue) {
		return &f.queue[f.head]
	}
	return nil
}

// blocked reports whether a filter starts before pos but its block is not
// complete: output that can never be written.
func (f *filterState) blocked(pos int64) bool {
	p := f.head0()
	return p != nil && p.start < pos
}

func (f *filterState) pop() {
	f.head++
	if f.head == len(f.queue) {
		f.queue = f.queue[:0]
		f.head = 0
	}
}

// vmBits reads VM code bits MSB first; past the end it reads zeros, as
// unrar's zero-filled buffer does.
type vmBits struct {
	b   []byte
	pos uint // bit position
}

func (v *vmBits) peek16() uint32 {
	i := v.pos >> 3
	var x uint32
	for k := uint(0); k < 3; k++ {
		x <<= 8
		if i+k < uint(len(v.b)) {
			x |= uint32(v.b[i+k])
		}
	}
	return (x >> (8 - v.pos&7)) & 0xffff
}

func (v *vmBits) skip(n uint) { v.pos += n }

func (v *vmBits) over() bool { return v.pos>>3 > uint(len(v.b)) }

// readData reads RarVM's variable-length number (unrar RarVM::ReadData).
func (v *vmBits) readData() uint32 {
	x := v.peek16()
	switch x & 0xc000 {
	case 0:
		v.skip(6)
		return x >> 10 & 0xf
	case 0x4000:
		if x&0x3c00 == 0 {
			v.skip(14)
			return 0xffffff00 | x>>2&0xff
		}
		v.skip(10)
		return x >> 6 & 0xff
	case 0x8000:
		v.skip(2)
		x = v.peek16()
		v.skip(16)
		return x
	default:
		v.skip(2)
		hi := v.peek16()
		v.skip(16)
		lo := v.peek16()
		v.skip(16)
		return hi<<16 | lo
	}
}

// addFilter parses a filter definition (unrar AddVMCode) and queues the
// filter at its output position.
func (d *Decoder) addFilter(first byte, code []byte) error {
	f := &d.flt
	v := vmBits{b: code}
	idx := f.last
	if first&0x80 != 0 {
		n := v.readData()
		if n == 0 {
			f.reset()
			idx = 0
		} else {
			idx = int(min(n-1, maxFilterDefs+1))
		}
	}
	if idx > len(f.defs) {
		return errs.Corrupt("rar v29: filter %d not defined", idx)
	}
	f.last = idx
	isNew := idx == len(f.defs)
	if isNew {
		if idx >= maxFilterDefs {
			return errs.Corrupt("rar v29: too many filters")
		}
		f.defs = append(f.defs, filterDef{})
	} else {
		f.defs[idx].execCount++
	}
	def := &f.defs[idx]
	if len(f.queue)-f.head >= maxPendingFilter {
		return errs.Corrupt("rar v29: too many pending filters")
	}
	start := v.readData()
	if first&0x40 != 0 {
		start += 258
	}
	length := def.lastLen
	if first&0x20 != 0 {
		length = v.readData()
		def.lastLen = length
	}
	var r [7]uint32
	r[3] = vmGlobalAddr
	r[4] = length
	r[5] = def.execCount
	if first&0x10 != 0 {
		m := v.peek16() >> 9
		v.skip(7)
		for i := range 7 {
			if m&(1<<i) != 0 {
				r[i] = v.readData()
			}
		}
	}
	if isNew {
		n := v.readData()
		if n == 0 || n >= maxCodeSize || uint(n) > uint(len(code)) || v.over() {
			return errs.Corrupt("rar v29: bad filter code size")
		}
		prog := programBytes(code, &v, int(n))
		kind, err := classify(prog)
		if err != nil {
			return err
		}
		def.kind = kind
	}
	if first&8 != 0 {
		n := v.readData()
		if n > vmGlobalSize-vmFixedGlobal {
			return errs.Corrupt("rar v29: filter data too large")
		}
		v.skip(uint(n) * 8) // user data: the standard filters ignore it
	}
	if v.over() {
		return errs.Corrupt("rar v29: filter definition truncated")
	}
	if def.kind == 0 {
		return errs.Corrupt("rar v29: filter refers to a failed definition")
	}
	return f.push(pendingFilter{start: d.Pos + int64(start), length: length, kind: def.kind, r: r})
}

// programBytes reads n bytes of program from the bit position of v and
// stores them at the front of code. That overwrites only bytes already
// consumed: the reader is at least one byte ahead (two numbers precede
// the program).
func programBytes(code []byte, v *vmBits, n int) []byte {
	for i := 0; i < n; i++ {
		code[i] = byte(v.peek16() >> 8)
		v.skip(8)
	}
	return code[:n]
}

// classify maps a program to a standard filter. Its first byte is an XOR
// checksum of the rest.
func classify(prog []byte) (filterKind, error) {
	var x byte
	for _, c := range prog[1:] {
		x ^= c
	}
	if x != prog[0] {
		return 0, errs.Corrupt("rar v29: filter code checksum mismatch")
	}
	crc := crc32.ChecksumIEEE(prog)
	for _, s := range standardFilters {
		if s.length == uint32(len(prog)) && s.crc == crc {
			return s.kind, nil
		}
	}
	return 0, errs.Unsupported("RarVM custom filter")
}

// push inserts p keeping the queue ordered by start. Filters on the same
// block with the same length chain; any other overlap is corrupt.
func (f *filterState) push(p pendingFilter) error {
	if f.queue == nil {
		f.queue = make([]pendingFilter, 0, 16)
	}
	i := len(f.queue)
	for i > f.head && f.queue[i-1].start > p.start {
		i--
	}
	if i > f.head {
		q := &f.queue[i-1]
		if q.start == p.start {
			if q.length != p.length {
				return errs.Corrupt("rar v29: overlapping filters")
			}
		} else if q.start+int64(q.length) > p.start {
			return errs.Corrupt("rar v29: overlapping filters")
		}
	}
	if i < len(f.queue) && p.start+int64(p.length) > f.queue[i].start {
		return errs.Corrupt("rar v29: overlapping filters")
	}
	f.queue = append(f.queue, pendingFilter{})
	copy(f.queue[i+1:], f.queue[i:])
	f.queue[i] = p
	return nil
}

// runFilters applies the filter at the head of the queue, and any chained
// after it on the same block, to the window bytes at d.Wr. The result
// lives in VM memory until the next call.
func (d *Decoder) runFilters() ([]byte, error) {
	f := &d.flt
	p := f.head0()
	n := int(p.length)
	start := p.start
	mem := f.mem()
	if n > vmMemSize {
		return nil, errs.Corrupt("rar v29: filter block of %d bytes", n)
	}
	// Copy the block out of the ring.
	i := int(start & d.Mask)
	k := copy(mem[:n], d.Win[i:min(i+n, len(d.Win))])
	copy(mem[k:n], d.Win[:n-k])
	out := mem[:n]
	for {
		var err error
		out, err = applyFilter(p.kind, mem, n, &p.r, uint32(start-d.Start))
		if err != nil {
			return nil, err
		}
		f.runs[p.kind]++
		filtersApplied.Add(1)
		f.pop()
		p = f.head0()
		if p == nil || p.start != start || int(p.length) != n {
			break
		}
		copy(mem[:n], out) // a no-op for in-place filters
	}
	return out, nil
}

// applyFilter runs a standard filter on mem[:n] (unrar
// RarVM::ExecuteStandardFilter). E8, E8E9 and Itanium work in place;
// Delta, RGB and Audio write mem[n:2n]. fileOffset is the block's position
// in the entry (R6, the "written file size").
//
// A standard filter whose parameters are out of its range (a block too
// short for E8 or Itanium, zero or too many channels, an RGB width past
// the block) leaves the block as it is: unrar's filter then returns
// false and the unfiltered VM memory is written, so the entry's checksum
// decides. Refusing such a block would fail entries unrar extracts.
func applyFilter(kind filterKind, mem []byte, n int, r *[7]uint32, fileOffset uint32) ([]byte, error) {
	switch kind {
	case filterE8, filterE8E9:
		if n >= 4 {
			rarfilter.E8E9(mem[:n], fileOffset, kind == filterE8E9, rarfilter.V3Offsets)
		}
		return mem[:n], nil
	case filterItanium:
		if n >= 21 {
			itanium(mem[:n], fileOffset)
		}
		return mem[:n], nil
	case filterDelta:
		ch := r[0]
		if n > vmMemSize/2 || ch == 0 || ch > 1024 {
			return mem[:n], nil
		}
		rarfilter.Delta(mem[n:2*n], mem[:n], int(ch))
		return mem[n : 2*n], nil
	case filterRGB:
		width, posR := r[0]-3, r[1]
		if n > vmMemSize/2 || n < 3 || width > uint32(n) || posR > 2 {
			return mem[:n], nil
		}
		rgb(mem[n:2*n], mem[:n], int(width), int(posR))
		return mem[n : 2*n], nil
	case filterAudio:
		ch := r[0]
		if n > vmMemSize/2 || ch == 0 || ch > 128 {
			return mem[:n], nil
		}
		audio(mem[n:2*n], mem[:n], int(ch))
		return mem[n : 2*n], nil
	}
	return nil, errs.Corrupt("rar v29: unknown filter")
}

// itanium undoes the IA-64 branch transform on 16-byte bundles.
func itanium(b []byte, fileOffset uint32) {
	masks := [16]byte{4, 4, 6, 6, 0, 0, 7, 7, 4, 4, 0, 0, 4, 4, 0, 0}
	fileOffset >>= 4
	for pos := 0; pos < len(b)-21; pos += 16 {
		t := int(b[pos]&0x1f) - 0x10
		if t >= 0 {
			if m := masks[t]; m != 0 {
				for i := uint(0); i <= 2; i++ {
					if m&(1<<i) == 0 {
						continue
					}
					sp := i*41 + 5
					if itGet(b[pos:], sp+37, 4) == 5 {
						off := itGet(b[pos:], sp+13, 20)
						itSet(b[pos:], (off-fileOffset)&0xfffff, sp+13, 20)
					}
				}
			}
		}
		fileOffset++
	}
}

func itGet(b []byte, bitPos, n uint) uint32 {
	i := bitPos / 8
	x := binary.LittleEndian.Uint32(b[i:])
	return x >> (bitPos & 7) & (uint32(0xffffffff) >> (32 - n))
}

func itSet(b []byte, v uint32, bitPos, n uint) {
	i := bitPos / 8
	sh := bitPos & 7
	m := ^((uint32(0xffffffff) >> (32 - n)) << sh)
	x := binary.LittleEndian.Uint32(b[i:])
	binary.LittleEndian.PutUint32(b[i:], x&m|v<<sh)
}

// rgb undoes the Paeth-like prediction of 24-bit pixel rows of width
// bytes, then the green-difference transform.
func rgb(dst, src []byte, width, posR int) {
	n := len(dst)
	s := 0
	for c := 0; c < 3; c++ {
		var prev uint32
		for i := c; i < n; i += 3 {
			pred := prev
			if i >= width+3 {
				up := uint32(dst[i-width])
				upLeft := uint32(dst[i-width-3])
				pred = prev + up - upLeft
				pa := absInt(int32(pred - prev))
				pb := absInt(int32(pred - up))
				pc := absInt(int32(pred - upLeft))
				switch {
				case pa <= pb && pa <= pc:
					pred = prev
				case pb <= pc:
					pred = up
				default:
					pred = upLeft
				}
			}
			prev = uint32(byte(pred - uint32(src[s])))
			dst[i] = byte(prev)
			s++
		}
	}
	for i := posR; i < n-2; i += 3 {
		g := dst[i+1]
		dst[i] += g
		dst[i+2] += g
	}
}

func absInt(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// audio undoes RAR's adaptive linear prediction of 8-bit sample deltas.
func audio(dst, src []byte, channels int) {
	n := len(dst)
	s := 0
	for c := 0; c < channels; c++ {
		var prevByte, prevDelta uint32
		var dif [7]uint32
		var d1, d2, d3 int32
		var k [3]int32 // the predictor's weights of d1, d2, d3
		for i, count := c, 0; i < n; i, count = i+channels, count+1 {
			d3 = d2
			d2 = int32(prevDelta) - d1
			d1 = int32(prevDelta)
			pred := 8*prevByte + uint32(k[0]*d1+k[1]*d2+k[2]*d3)
			pred = pred >> 3 & 0xff
			cur := uint32(src[s])
			s++
			pred -= cur
			dst[i] = byte(pred)
			prevDelta = uint32(int32(int8(byte(pred - prevByte))))
			prevByte = uint32(byte(pred))
			dd := int32(int8(byte(cur))) << 3
			dif[0] += uint32(absInt(dd))
			dif[1] += uint32(absInt(dd - d1))
			dif[2] += uint32(absInt(dd + d1))
			dif[3] += uint32(absInt(dd - d2))
			dif[4] += uint32(absInt(dd + d2))
			dif[5] += uint32(absInt(dd - d3))
			dif[6] += uint32(absInt(dd + d3))
			if count&0x1f == 0 {
				minDif, best := dif[0], 0
				dif[0] = 0
				for j := 1; j < len(dif); j++ {
					if dif[j] < minDif {
						minDif, best = dif[j], j
					}
					dif[j] = 0
				}
				// dif[2j+1] best: k[j] down; dif[2j+2]: up (within ±16).
				if j := (best - 1) / 2; best > 0 && best&1 == 1 {
					if k[j] >= -16 {
						k[j]--
					}
				} else if best > 0 && k[j] < 16 {
					k[j]++
				}
			}
		}
	}
}

// filtersApplied counts the filters every decoder has applied.
var filtersApplied atomic.Int64

// FiltersApplied returns how many filters all decoders have applied
// (the container's tests check that a stream had filters).
func FiltersApplied() int64 { return filtersApplied.Load() }
