package lzma

import (
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/codecreader"
	core "github.com/go-unarc/unarc/internal/lzma"
)

// Errors besides the unarc sentinels (errors.Is with unarc.ErrCorrupt,
// unarc.ErrTruncated, unarc.ErrLimit, unarc.ErrInvalidOption).
var (
	// ErrClosed: Read after Close without a Reset.
	ErrClosed = errors.New("lzma: reader closed")
	// ErrWriterClosed: Write or Flush after Close without a Reset.
	ErrWriterClosed = errors.New("lzma: writer closed")
)

// pub returns err with the implementation's closed errors replaced by
// this package's, by the rule bzip2 and xz use.
func pub(err error) error {
	err = codecreader.Replace(err, core.ErrClosed, ErrClosed)
	return codecreader.Replace(err, core.ErrWriterClosed, ErrWriterClosed)
}

// Props are the LZMA model properties: literal context bits (LC), literal
// position bits (LP), position bits (PB) and the dictionary size, as the
// 5-byte properties block of 7z coders, the .lzma header and ZIP method 14
// store them.
type Props struct {
	LC, LP, PB int
	DictSize   uint32
}

// DecodeProps decodes a 5-byte properties block (the byte
// (PB*5+LP)*9+LC, then the dictionary size as uint32 little endian).
func DecodeProps(b []byte) (Props, error) {
	p, err := core.DecodeProps(b)
	return Props(p), err
}

// Encode returns the 5-byte form of p (the inverse of DecodeProps).
func (p Props) Encode() [5]byte { return core.Props(p).Encode() }

// decoder is what the three implementations have in common.
type decoder interface {
	io.Reader
	io.WriterTo
	io.Closer
}

// The forms a Reader decodes.
const (
	formHeader = iota // .lzma
	formRaw           // LZMA with explicit properties
	form2             // LZMA2
)

// Reader decodes one LZMA or LZMA2 stream. Create it with NewReader
// (.lzma files), NewRawReader (LZMA with its properties given, as 7z
// stores it) or NewReader2 (LZMA2, as 7z and xz store it); decode with
// Read or io.Copy (WriteTo writes straight from the window); Close
// returns the window and tables to the package's pools.
type Reader struct {
	form  int
	props Props
	dict  int64
	size  int64
	cfg   readerConfig

	d  decoder
	r1 *core.Reader
	r2 *core.Reader2
}

// NewReader returns a reader of the .lzma format (LZMA_Alone, as written
// by xz --format=lzma, lzma and 7-Zip): 5 bytes of properties, the
// uncompressed size as uint64 little endian (all ones: unknown, then the
// stream ends with an end marker), then the stream.
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	return newReader(r, formHeader, Props{}, 0, -1, opts)
}

// NewRawReader returns a reader of a raw LZMA stream with properties p
// (DecodeProps of a 7z coder's properties, or of the 5 bytes after ZIP
// method 14's 4-byte version and size prefix) that decodes size bytes
// (-1: unknown, the stream then ends with an end marker).
func NewRawReader(r io.Reader, p Props, size int64, opts ...ReaderOption) (*Reader, error) {
	return newReader(r, formRaw, p, 0, size, opts)
}

// NewReader2 returns a reader of an LZMA2 stream with a dictionary of
// dictSize bytes that decodes size bytes (-1: unknown; the stream's end
// byte ends it). With WithWorkers(n > 1) it decodes the independent
// blocks of a multi-threaded stream in parallel.
func NewReader2(r io.Reader, dictSize, size int64, opts ...ReaderOption) (*Reader, error) {
	return newReader(r, form2, Props{}, dictSize, size, opts)
}

func newReader(r io.Reader, form int, p Props, dict, size int64, opts []ReaderOption) (*Reader, error) {
	z := &Reader{form: form, props: p, dict: dict, size: size}
	if err := z.cfg.apply(opts); err != nil {
		return nil, err
	}
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z decode a new stream from r in the same form and with the
// same options (a raw LZMA or LZMA2 stream: with the same properties,
// dictionary and size), keeping its buffers where it can.
func (z *Reader) Reset(r io.Reader) error {
	opts := z.cfg.opts
	var err error
	switch {
	case z.form == form2 && z.cfg.workers > 1:
		if z.d != nil {
			z.d.Close()
		}
		var mt *core.Reader2MT
		mt, err = core.NewReader2MT(r, z.dict, z.size, z.cfg.workers, opts...)
		if err == nil {
			z.d = mt
		}
	case z.form == form2:
		if z.r2 == nil {
			z.r2, err = core.NewReader2(r, z.dict, z.size, opts...)
		} else {
			err = z.r2.Reset(r, z.dict, z.size, opts...)
		}
		if err == nil {
			z.d = z.r2
		}
	case z.r1 == nil && z.form == formHeader:
		z.r1, err = core.NewReaderLZMAHeader(r, opts...)
	case z.r1 == nil:
		z.r1, err = core.NewReader(r, core.Props(z.props), z.size, opts...)
	case z.form == formHeader:
		err = z.r1.ResetLZMAHeader(r, opts...)
	default:
		err = z.r1.Reset(r, core.Props(z.props), z.size, opts...)
	}
	if err == nil && z.form != form2 {
		z.d = z.r1
	}
	return err
}

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) {
	if z.d == nil {
		return 0, ErrClosed
	}
	n, err := z.d.Read(p)
	return n, pub(err)
}

// WriteTo writes the rest of the stream to w straight from the window.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	if z.d == nil {
		return 0, ErrClosed
	}
	n, err := z.d.WriteTo(w)
	return n, pub(err)
}

// Close returns the window, tables and input buffer to the pools. Reads
// fail afterwards, with ErrClosed, until Reset.
func (z *Reader) Close() error {
	if z.d == nil {
		return nil
	}
	return z.d.Close()
}
