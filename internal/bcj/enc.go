package bcj

import (
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/pool"
)

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
	case X86, ARM, ARMT, ARM64, PPC, SPARC, Delta, Swap2, Swap4:
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
		return x86(b, f.ip, &f.state, true)
	case ARM:
		return arm(b, f.ip, true)
	case ARMT:
		return armt(b, f.ip, true)
	case ARM64:
		return arm64(b, f.ip, true)
	case PPC:
		return ppc(b, f.ip, true)
	case SPARC:
		return sparc(b, f.ip, true)
	case Delta:
		f.deltaEnc(b)
		return len(b)
	case Swap2: // its own inverse
		return swap(b, 2)
	case Swap4:
		return swap(b, 4)
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
