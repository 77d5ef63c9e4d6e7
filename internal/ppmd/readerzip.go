package ppmd

import (
	"bufio"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// ZipHeader is the 2-byte header of a ZIP method 98 stream (APPNOTE 5.10).
type ZipHeader struct {
	Order   int    // model order, 2..16
	Memory  uint32 // model memory in bytes, 1..256 MiB
	Restore int    // RestoreRestart or RestoreCutOff
}

// ParseZipHeader decodes the little-endian header word v: order-1 in bits
// 0-3, memory in MiB - 1 in bits 4-11, restoration method in bits 12-15.
// An order below 2 is corrupt; the method 7-Zip calls "freeze" (2) and
// higher ones are unsupported.
func ParseZipHeader(v uint16) (ZipHeader, error) {
	h := ZipHeader{
		Order:   int(v&0xF) + 1,
		Memory:  (uint32(v>>4)&0xFF + 1) << 20,
		Restore: int(v >> 12),
	}
	if h.Order < MinOrder8 {
		return h, errs.Corrupt("ppmd8: model order %d", h.Order)
	}
	if h.Restore > RestoreCutOff {
		return h, errs.Unsupported("ppmd8: restoration method %d", h.Restore)
	}
	return h, nil
}

var model8Pool idle[model8]

// ReaderZip decodes a ZIP PPMd (method 98) stream: the 2-byte header,
// then PPMd var.I rev.1 data with Subbotin's range coder, ending with
// the end marker.
type ReaderZip struct {
	m    *model8
	rc   rangeDecoder
	bufr *bufio.Reader // kept across Reset when the source needs wrapping
	hdr  ZipHeader
	left int64 // bytes still to produce; < 0: until the end marker
	size int64 // the stream's size as given (checkpoint.go)
	err  error // sticky: io.EOF at the end
}

// NewReaderZip reads the header of the stream in r and returns a reader
// of its size decoded bytes (size < 0: unknown, decode up to the end
// marker). A model that needs more than maxMem bytes with its tables
// (Overhead; maxMem <= 0: no limit) is refused with errs.ErrLimit before anything is allocated.
//
// With a known size the stream must end exactly at the end of r: after
// size bytes the end marker must follow, the range decoder must finish
// cleanly, and r must hold nothing more. With an unknown size nothing is
// read past the end marker when r can be peeked in place (Peek, Discard
// and Buffered, as *bufio.Reader has: the fast path; r is positioned
// after what was decoded whenever Read returns) or is an io.ByteReader
// (read one byte per call); otherwise the input is buffered and may be
// read ahead.
func NewReaderZip(r io.Reader, size, maxMem int64) (*ReaderZip, error) {
	z := new(ReaderZip)
	if err := z.Reset(r, size, maxMem); err != nil {
		z.Close()
		return nil, err
	}
	return z, nil
}

// Reset starts decoding a new stream like NewReaderZip, reusing the model
// arena and the input buffer.
func (z *ReaderZip) Reset(r io.Reader, size, maxMem int64) error {
	*z = ReaderZip{m: z.m, bufr: z.bufr, left: size, size: size}
	z.rc.setSource(r, &z.bufr)
	z.err = z.start(maxMem)
	z.rc.sync()
	return z.err
}

func (z *ReaderZip) start(maxMem int64) error {
	v := z.rc.readByte()
	v |= z.rc.readByte() << 8
	if z.rc.err != nil {
		return errs.EOF(z.rc.err, "ppmd8: header")
	}
	h, err := ParseZipHeader(uint16(v))
	if err != nil {
		return err
	}
	z.hdr = h
	if need := int64(h.Memory) + Overhead(int64(h.Memory)); maxMem > 0 && need > maxMem {
		return errs.Limit("MaxMemory: ppmd8 model of %d bytes (%d with its tables) exceeds the limit %d", h.Memory, need, maxMem)
	}
	if err := z.rc.initRAR(); err != nil {
		return err
	}
	if z.rc.code == 0xFFFFFFFF {
		return errs.Corrupt("ppmd8: bad range coder header")
	}
	if z.m == nil {
		z.m = model8Pool.get()
	}
	return z.m.init8(h.Order, h.Memory, h.Restore)
}

// Header returns the parsed stream header (valid after a successful
// NewReaderZip or Reset).
func (z *ReaderZip) Header() ZipHeader { return z.hdr }

// Read decodes into p (a twin of Reader7z.Read: see there why).
func (z *ReaderZip) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	p = clip(p, z.left)
	m, rc := z.m, &z.rc
	defer rc.sync()
	n := 0
	for n < len(p) {
		sym := m.decodeSymbol(rc)
		if rc.err != nil {
			z.err = errs.EOF(rc.err, "ppmd8: stream")
			return n, z.err
		}
		if sym < 0 {
			switch {
			case sym == symError:
				z.err = errs.Corrupt("ppmd8: bad symbol")
			case z.left >= 0:
				z.err = errs.Corrupt("ppmd8: end marker after %d of %d bytes", n, z.left)
			default:
				z.err = z.finish()
			}
			return n, z.err
		}
		p[n] = byte(sym)
		n++
	}
	if used(&z.left, n) {
		z.err = z.end()
		if n == 0 || z.err != io.EOF {
			return n, z.err
		}
	}
	return n, nil
}

// end checks, after the last declared byte, that the end marker follows,
// the range decoder ends cleanly and the source holds nothing more.
func (z *ReaderZip) end() error {
	sym := z.m.decodeSymbol(&z.rc)
	if z.rc.err != nil {
		return errs.EOF(z.rc.err, "ppmd8: end marker")
	}
	if sym != symEnd {
		return errs.Corrupt("ppmd8: no end marker after the declared size")
	}
	if err := z.finish(); err != io.EOF {
		return err
	}
	if eof, err := z.rc.atEOF(); err != nil {
		return errs.EOF(err, "ppmd8: after the end marker")
	} else if !eof {
		return errs.Corrupt("ppmd8: data after the end marker")
	}
	return io.EOF
}

func (z *ReaderZip) finish() error {
	if z.rc.code != 0 {
		return errs.Corrupt("ppmd8: range decoder did not end cleanly")
	}
	return io.EOF
}

// Close returns the model arena to the pool. Later Reads fail.
func (z *ReaderZip) Close() error {
	closeModel(&model8Pool, &z.m)
	z.rc.detach(z.bufr)
	z.err = errClosed
	return nil
}
