package bcj

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/pool"
)

// The encoders below are the forward direction of the converters in
// filters.go: where a decoder subtracts the instruction's position from
// an absolute target, the encoder adds it (7-Zip's Bra.c/Bra86.c with
// encoding = 1). Each converts b in place, b[0] at stream position ip,
// and returns how many leading bytes are final.

// x86Enc makes E8/E9 rel32 operands absolute.
func x86Enc(b []byte, ip uint32, state *uint32) int {
	if len(b) < 5 {
		return 0
	}
	size := len(b) - 4
	ip += 5
	mask := *state & 7
	pos := 0
	for {
		p := pos
		for p < size && b[p]&0xFE != 0xE8 {
			p++
		}
		d := p - pos
		pos = p
		if p >= size {
			if d > 2 {
				*state = 0
			} else {
				*state = mask >> uint(d)
			}
			return pos
		}
		if d > 2 {
			mask = 0
		} else {
			mask >>= uint(d)
			if mask != 0 && (mask > 4 || mask == 3 || test86(b[p+int(mask>>1)+1])) {
				mask = (mask >> 1) | 4
				pos++
				continue
			}
		}
		if !test86(b[p+4]) {
			mask = (mask >> 1) | 4
			pos++
			continue
		}
		v := binary.LittleEndian.Uint32(b[p+1:])
		cur := ip + uint32(pos)
		pos += 5
		v += cur
		if mask != 0 {
			sh := (mask & 6) << 2
			if test86(byte(v >> sh)) {
				v ^= (uint32(0x100) << sh) - 1
				v += cur
			}
			mask = 0
		}
		b[p+1] = byte(v)
		b[p+2] = byte(v >> 8)
		b[p+3] = byte(v >> 16)
		b[p+4] = byte(0 - ((v >> 24) & 1))
	}
}

// armEnc makes ARM BL offsets absolute.
func armEnc(b []byte, ip uint32) int {
	if len(b) < 4 {
		return 0
	}
	ip += 8
	i := 0
	for ; i <= len(b)-4; i += 4 {
		if b[i+3] != 0xEB {
			continue
		}
		src := (uint32(b[i+2])<<16 | uint32(b[i+1])<<8 | uint32(b[i])) << 2
		dest := (src + ip + uint32(i)) >> 2
		b[i+2] = byte(dest >> 16)
		b[i+1] = byte(dest >> 8)
		b[i] = byte(dest)
	}
	return i
}

// armtEnc makes ARM Thumb BL offsets absolute.
func armtEnc(b []byte, ip uint32) int {
	if len(b) < 4 {
		return 0
	}
	ip += 4
	i := 0
	for ; i <= len(b)-4; i += 2 {
		if b[i+1]&0xF8 != 0xF0 || b[i+3]&0xF8 != 0xF8 {
			continue
		}
		src := ((uint32(b[i+1])&7)<<19 | uint32(b[i])<<11 | (uint32(b[i+3])&7)<<8 | uint32(b[i+2])) << 1
		dest := (src + ip + uint32(i)) >> 1
		b[i+1] = byte(0xF0 | (dest>>19)&7)
		b[i] = byte(dest >> 11)
		b[i+3] = byte(0xF8 | (dest>>8)&7)
		b[i+2] = byte(dest)
		i += 2
	}
	return i
}

// arm64Enc makes ARM64 BL immediates and ADRP page offsets absolute.
func arm64Enc(b []byte, ip uint32) int {
	const flag = uint32(1) << (24 - 4)
	const mask = (uint32(1) << 24) - (flag << 1)
	n := len(b) &^ 3
	for i := 0; i < n; i += 4 {
		v := binary.LittleEndian.Uint32(b[i:])
		pc := ip + uint32(i)
		if (v-0x94000000)&0xFC000000 == 0 { // BL
			v += pc >> 2
			v &= 0x03FFFFFF
			v |= 0x94000000
			binary.LittleEndian.PutUint32(b[i:], v)
			continue
		}
		v -= 0x90000000
		if v&0x9F000000 != 0 { // not ADRP
			continue
		}
		v += flag
		if v&mask != 0 {
			continue
		}
		z := (v & 0xFFFFFFE0) | (v >> 26)
		z += (pc >> (12 - 3)) &^ 7
		v &= 0x1F
		v |= 0x90000000
		v |= z << 26
		v |= 0x00FFFFE0 & ((z & ((flag << 1) - 1)) - flag)
		binary.LittleEndian.PutUint32(b[i:], v)
	}
	return n
}

// ppcEnc makes PowerPC "bl" offsets absolute.
func ppcEnc(b []byte, ip uint32) int {
	if len(b) < 4 {
		return 0
	}
	i := 0
	for ; i <= len(b)-4; i += 4 {
		if b[i]>>2 != 0x12 || b[i+3]&3 != 1 {
			continue
		}
		src := (uint32(b[i])&3)<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])&^3
		dest := src + ip + uint32(i)
		b[i] = byte(0x48 | (dest>>24)&3)
		b[i+1] = byte(dest >> 16)
		b[i+2] = byte(dest >> 8)
		b[i+3] = b[i+3]&3 | byte(dest)&^3
	}
	return i
}

// sparcEnc makes SPARC "call" offsets absolute.
func sparcEnc(b []byte, ip uint32) int {
	if len(b) < 4 {
		return 0
	}
	i := 0
	for ; i <= len(b)-4; i += 4 {
		if !(b[i] == 0x40 && b[i+1]&0xC0 == 0) && !(b[i] == 0x7F && b[i+1]&0xC0 == 0xC0) {
			continue
		}
		src := binary.BigEndian.Uint32(b[i:]) << 2
		dest := (src + ip + uint32(i)) >> 2
		dest = ((0-((dest>>22)&1))<<22)&0x3FFFFFFF | dest&0x3FFFFF | 0x40000000
		binary.BigEndian.PutUint32(b[i:], dest)
	}
	return i
}

// Writer applies a filter forward to the bytes written to it and passes
// them on: what Reader undoes. A few bytes that may begin an instruction
// wait for the next Write; Close passes them on unconverted, as the
// decoder expects at the end of a stream. The buffer comes from
// internal/pool and goes back on Close.
type Writer struct {
	w     io.Writer
	kind  Kind
	bufp  *[]byte
	buf   []byte
	n     int // buf[:n] is pending, not yet converted
	ip    uint32
	state uint32
	err   error

	dist  int
	dpos  uint8
	dhist [256]byte
}

// ErrWriterKind: a filter Writer does not encode (IA-64, RISC-V).
var ErrWriterKind = errors.New("bcj: no encoder for this filter")

var errWriterClosed = errors.New("bcj: write after Close")

// NewWriter returns a Writer applying filter k to what is written into
// w, starting at instruction pointer start; for Delta, dist (1..256) is
// the distance.
func NewWriter(w io.Writer, k Kind, start uint32, dist int) *Writer {
	f := new(Writer)
	f.Reset(w, k, start, dist)
	return f
}

// Reset makes f filter a new stream into w, taking a buffer from the pool
// when it has none.
func (f *Writer) Reset(w io.Writer, k Kind, start uint32, dist int) {
	bufp := f.bufp
	*f = Writer{w: w, kind: k, bufp: bufp, ip: start, dist: dist}
	switch k {
	case X86, ARM, ARMT, ARM64, PPC, SPARC, Delta:
	default:
		f.err = ErrWriterKind
	}
	if f.bufp == nil {
		f.bufp = pool.Get(bufSize)
	}
	f.buf = (*f.bufp)[:bufSize]
	if f.dist < 1 || f.dist > 256 {
		f.dist = 1
	}
}

// Write filters p.
func (f *Writer) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	total := len(p)
	for len(p) > 0 {
		c := copy(f.buf[f.n:], p)
		f.n += c
		p = p[c:]
		if f.n == len(f.buf) {
			if err := f.emit(false); err != nil {
				return total - len(p), err
			}
		}
	}
	return total, nil
}

// emit converts the pending bytes and writes the final ones (all of them
// at the end of the stream).
func (f *Writer) emit(end bool) error {
	done := f.convert(f.buf[:f.n])
	if done > f.n {
		done = f.n
	}
	if end {
		done = f.n
	}
	if done > 0 {
		if _, err := f.w.Write(f.buf[:done]); err != nil {
			f.err = err
			return err
		}
	}
	f.ip += uint32(done)
	f.n = copy(f.buf, f.buf[done:f.n])
	return nil
}

func (f *Writer) convert(b []byte) int {
	switch f.kind {
	case X86:
		return x86Enc(b, f.ip, &f.state)
	case ARM:
		return armEnc(b, f.ip)
	case ARMT:
		return armtEnc(b, f.ip)
	case ARM64:
		return arm64Enc(b, f.ip)
	case PPC:
		return ppcEnc(b, f.ip)
	case SPARC:
		return sparcEnc(b, f.ip)
	case Delta:
		f.deltaEnc(b)
		return len(b)
	}
	return len(b)
}

// deltaEnc stores each byte as its difference to the byte dist earlier.
func (f *Writer) deltaEnc(b []byte) {
	h := &f.dhist
	pos := f.dpos
	d := uint8(f.dist)
	for i, c := range b {
		b[i] = c - h[pos-d]
		h[pos] = c
		pos++
	}
	f.dpos = pos
}

// Close writes the pending bytes (the tail unconverted) and returns the
// buffer to the pool. It does not close the underlying writer.
func (f *Writer) Close() error {
	var err error
	if f.err == nil && f.buf != nil {
		err = f.emit(true)
	} else if f.err != errWriterClosed {
		err = f.err
	}
	if f.bufp != nil {
		pool.Put(f.bufp)
		f.bufp, f.buf = nil, nil
	}
	if f.err == nil {
		f.err = errWriterClosed
	}
	return err
}
