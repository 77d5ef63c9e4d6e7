package ppmd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// ParseProps7z reads the 5-byte properties of 7z coder 03 04 01: the model
// order, then the memory size as a little-endian uint32. Values outside
// what 7-Zip accepts are reported as unsupported. Check mem against your
// memory limit before NewReader7z.
func ParseProps7z(props []byte) (order int, mem uint32, err error) {
	if len(props) < 5 {
		return 0, 0, errs.Corrupt("ppmd: %d property bytes, want 5", len(props))
	}
	order = int(props[0])
	mem = binary.LittleEndian.Uint32(props[1:])
	if order < MinOrder || order > MaxOrder || mem < MinMemory || mem > MaxMemory {
		return 0, 0, errs.Unsupported("ppmd: order %d, memory %d", order, mem)
	}
	return order, mem, nil
}

var modelPool idle[Model]

// errClosed is returned by Read after Close.
var errClosed = errors.New("ppmd: read after Close")

// Reader7z decodes a 7z PPMd (Ppmd7z) stream of a known unpacked size.
type Reader7z struct {
	m     *Model
	rc    rangeDecoder
	bufr  *bufio.Reader // kept across Reset when the source needs wrapping
	order int
	mem   uint32
	left  int64 // bytes still to produce; < 0: until the end marker
	size  int64 // the stream's size as given (checkpoint.go)
	err   error // sticky: io.EOF at the end
}

// NewReader7z returns a reader of the size bytes packed in r with the
// given model order and memory (see ParseProps7z). size < 0 means unknown:
// decode up to the end marker. The model arena (mem bytes) is allocated
// here, so bound mem first. Close returns it to the pool.
func NewReader7z(r io.Reader, order int, mem uint32, size int64) (*Reader7z, error) {
	z := new(Reader7z)
	if err := z.Reset(r, order, mem, size); err != nil {
		return nil, err
	}
	return z, nil
}

// NewReader7zProps is NewReader7z for a 7z coder record: it parses the
// 5 property bytes and refuses (errs.ErrLimit) a model that needs more
// than maxMem bytes with its tables (Overhead) before allocating it. maxMem <= 0 means no limit beyond
// the format's own (4 GiB).
func NewReader7zProps(r io.Reader, props []byte, size int64, maxMem int64) (*Reader7z, error) {
	order, mem, err := ParseProps7z(props)
	if err != nil {
		return nil, err
	}
	if need := int64(mem) + Overhead(int64(mem)); maxMem > 0 && need > maxMem {
		return nil, errs.Limit("ppmd: model memory %d (%d with its tables) exceeds the limit %d", mem, need, maxMem)
	}
	return NewReader7z(r, order, mem, size)
}

// Reset starts decoding a new stream, reusing the model arena and input
// buffer when they fit. It reads the 5-byte range coder header.
func (z *Reader7z) Reset(r io.Reader, order int, mem uint32, size int64) error {
	if order < MinOrder || order > MaxOrder || mem < MinMemory || mem > MaxMemory {
		z.err = errs.Unsupported("ppmd: order %d, memory %d", order, mem)
		return z.err
	}
	*z = Reader7z{m: z.m, bufr: z.bufr, order: order, mem: mem, left: size, size: size}
	z.rc.setSource(r, &z.bufr)
	if z.m == nil {
		z.m = modelPool.get()
	}
	err := z.rc.init7z()
	z.rc.sync()
	if err != nil {
		z.err = err
		return err
	}
	if err := z.m.Init(order, int(mem)); err != nil {
		z.err = err
		return err
	}
	return nil
}

// Read decodes into p. At the end of the stream it checks that the range
// decoder finished cleanly (code 0) and returns io.EOF. (ReaderZip.Read
// is its twin on purpose: one generic loop would call decodeSymbol
// indirectly for every symbol, as Go shares one instantiation among
// pointer types.)
func (z *Reader7z) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.m == nil {
		return 0, errClosed
	}
	n := 0
	p = clip(p, z.left)
	m, rc := z.m, &z.rc
	defer rc.sync()
	for n < len(p) {
		sym := m.decodeSymbol(rc)
		if rc.err != nil {
			z.err = errs.EOF(rc.err, "ppmd: stream")
			return n, z.err
		}
		if sym < 0 {
			if sym == symEnd && z.left < 0 && rc.code == 0 {
				z.err = io.EOF
			} else if sym == symEnd {
				z.err = errs.Corrupt("ppmd: unexpected end marker")
			} else {
				z.err = errs.Corrupt("ppmd: bad symbol")
			}
			return n, z.err
		}
		p[n] = byte(sym)
		n++
	}
	if used(&z.left, n) {
		if rc.code != 0 {
			z.err = errs.Corrupt("ppmd: data after the last symbol")
		} else {
			z.err = io.EOF
		}
		if n == 0 {
			return 0, z.err
		}
	}
	return n, nil
}

// clip returns p cut to the left bytes a stream still has to produce
// (left < 0: no declared size), before the decoding loop of
// Reader7z.Read and ReaderZip.Read.
func clip(p []byte, left int64) []byte {
	if left >= 0 && int64(len(p)) > left {
		return p[:left]
	}
	return p
}

// used counts the n bytes a Read produced off *left, when the stream has
// a declared size, and reports whether that size is now used up (the
// stream must end there).
func used(left *int64, n int) bool {
	if *left < 0 {
		return false
	}
	*left -= int64(n)
	return *left == 0
}

// Close returns the model to the pool. Later Reads fail.
func (z *Reader7z) Close() error {
	closeModel(&modelPool, &z.m)
	z.rc.detach(z.bufr)
	z.err = errClosed
	return nil
}
