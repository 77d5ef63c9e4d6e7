// Package bcj decodes the branch-conversion filters 7-Zip (and RAR, xz)
// apply to executable code before compression: x86 (BCJ), the four-stream
// BCJ2, ARM, ARM Thumb, ARM64, PowerPC, SPARC, IA-64 and RISC-V, plus the
// byte-wise Delta filter. Each filter is a pure function over a buffer plus
// a little state; Reader runs one over a stream.
package bcj

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
)

// Kind selects a filter.
type Kind uint8

// The filters Reader knows.
const (
	X86 Kind = iota + 1
	ARM
	ARMT
	ARM64
	PPC
	SPARC
	IA64
	RISCV
	Delta
	Swap2 // byte order of each 2-byte group reversed (7-Zip's Swap2)
	Swap4 // of each 4-byte group (Swap4)
)

var kindNames = [...]string{X86: "BCJ", ARM: "ARM", ARMT: "ARMT", ARM64: "ARM64", PPC: "PPC", SPARC: "SPARC", IA64: "IA64", RISCV: "RISCV", Delta: "Delta", Swap2: "Swap2", Swap4: "Swap4"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown filter"
}

// bufSize is the filter's working buffer; conversions look ahead at most
// 16 bytes (IA-64 bundles), so any size well above that works.
const bufSize = 64 << 10

// Reader decodes one filtered stream. Converted bytes are handed out; the
// few bytes at the end of the buffer that may start an instruction split
// by the buffer boundary wait for more input. At end of input they pass
// through unconverted, as the encoder left them.
type Reader struct {
	r     io.Reader
	kind  Kind
	bufp  *[]byte
	buf   []byte
	start int // buf[start:done] is converted and not yet read
	done  int
	end   int // buf[done:end] is read but not yet converted
	eof   bool
	err   error

	ip    uint32 // stream position of buf[0] (mod 2^32), as the encoder counted it
	state uint32 // x86 previous-mask state

	dist  int // Delta distance 1..256
	dpos  uint8
	dhist [256]byte
}

// NewReader returns a Reader decoding filter k over r. start is the
// initial instruction pointer (7-Zip's optional filter property; usually
// 0); for Delta it is ignored and dist (1..256) is the distance.
func NewReader(r io.Reader, k Kind, start uint32, dist int) *Reader {
	f := new(Reader)
	f.Reset(r, k, start, dist)
	return f
}

// Reset makes f decode a new stream, keeping its buffer.
func (f *Reader) Reset(r io.Reader, k Kind, start uint32, dist int) {
	bufp := f.bufp
	*f = Reader{r: r, kind: k, bufp: bufp, ip: start, dist: dist}
	if f.bufp == nil {
		f.bufp = pool.Get(bufSize)
	}
	f.buf = (*f.bufp)[:bufSize]
	if f.dist < 1 || f.dist > 256 {
		f.dist = 1
	}
}

// Read returns decoded bytes.
func (f *Reader) Read(p []byte) (int, error) {
	for f.start == f.done {
		if f.err != nil {
			return 0, f.err
		}
		if f.eof {
			if f.done < f.end { // trailing bytes pass unconverted
				f.done = f.end
				break
			}
			f.err = io.EOF
			return 0, io.EOF
		}
		f.fill()
	}
	n := copy(p, f.buf[f.start:f.done])
	f.start += n
	return n, nil
}

// fill moves the unconverted tail to the front, reads more and converts.
func (f *Reader) fill() {
	if f.buf == nil {
		f.err = io.ErrClosedPipe
		return
	}
	f.ip += uint32(f.done)
	m := copy(f.buf, f.buf[f.done:f.end])
	f.start, f.done, f.end = 0, 0, m
	for f.end < len(f.buf) && !f.eof {
		n, err := f.r.Read(f.buf[f.end:])
		f.end += n
		if err == io.EOF {
			f.eof = true
		} else if err != nil {
			f.err = err
			return
		}
		if n == 0 && err == nil {
			continue
		}
		if f.end >= 4096 {
			break // enough to work on
		}
	}
	f.done = f.convert(f.buf[:f.end])
	if f.done > f.end {
		f.done = f.end
	}
}

// convert dispatches to the filter of f.kind (a switch, not copied code:
// each case calls a different filter).
func (f *Reader) convert(b []byte) int {
	switch f.kind {
	case X86:
		return x86(b, f.ip, &f.state, false)
	case ARM:
		return arm(b, f.ip, false)
	case ARMT:
		return armt(b, f.ip, false)
	case ARM64:
		return arm64(b, f.ip, false)
	case PPC:
		return ppc(b, f.ip, false)
	case SPARC:
		return sparc(b, f.ip, false)
	case IA64:
		return ia64(b, f.ip)
	case RISCV:
		return riscv(b, f.ip)
	case Delta:
		f.delta(b)
		return len(b)
	case Swap2:
		return swap(b, 2)
	case Swap4:
		return swap(b, 4)
	}
	return len(b)
}

// delta undoes 7-Zip's Delta filter: each byte was stored as the
// difference to the byte dist positions earlier.
func (f *Reader) delta(b []byte) {
	h := &f.dhist
	pos := f.dpos
	d := uint8(f.dist) // 256 wraps to 0, which is right modulo 256
	for i, c := range b {
		c += h[pos-d]
		h[pos] = c
		b[i] = c
		pos++
	}
	f.dpos = pos
}

// Close returns the buffer to the pool; f must be Reset before reuse.
func (f *Reader) Close() error {
	if f.bufp != nil {
		pool.Put(f.bufp)
		f.bufp, f.buf = nil, nil
	}
	return nil
}
