package lzma

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// ErrWriterClosed: Write or Flush after Close without a Reset.
var ErrWriterClosed = errors.New("lzma: writer closed")

// windowFor is the window an encoder streaming with cfg allocates: the
// dictionary, room to refill (half the dictionary, at least 1 MiB), the
// look-ahead, and for LZMA2 a whole chunk (stored chunks copy from it).
// A known size caps it.
func windowFor(cfg *encConfig, lzma2 bool) int {
	d := int64(cfg.dictSize)
	n := d + max(d/2, 1<<20) + lookAhead
	if lzma2 {
		n += lzma2UnpackMax
	}
	if cfg.knownSize >= 0 && n > cfg.knownSize+lookAhead {
		n = cfg.knownSize + lookAhead
	}
	return int(n)
}

// keepFor is how much data before the encoder's position a streaming
// encoder keeps when it moves its window: the dictionary, and for LZMA2
// the open chunk.
func (e *encoder) keepFor(c *chunker) int {
	k := int(e.cfg.dictSize)
	if c != nil && c.started {
		k = max(k, int(e.pos-c.start))
	}
	return k
}

// encStream is what Writer and Writer2 share: the encoder, the window
// refill and the sticky error.
type encStream struct {
	e      encoder
	w      io.Writer
	err    error
	total  int64 // bytes written by the caller
	closed bool
}

// moreEncoder encodes what the window holds, keeping the look-ahead.
type moreEncoder interface{ encodeMore() error }

// fill copies p into the window, calling encode whenever the window is
// full, and returns how much of p it took.
func (s *encStream) fill(p []byte, enc moreEncoder, c *chunker) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if k := s.e.cfg.knownSize; k >= 0 && int64(len(p)) > k-s.total {
		s.err = s.sizeErr(s.total + int64(len(p)))
		return 0, s.err
	}
	n := 0
	for len(p) > 0 {
		mf := &s.e.mf
		if err := s.room(enc, c); err != nil {
			return n, err
		}
		k := mf.write(p)
		p = p[k:]
		n += k
		s.total += int64(k)
	}
	return n, nil
}

// room makes the window take more input: when it is full, it encodes
// what it holds and shifts the history the encoder still needs.
func (s *encStream) room(enc moreEncoder, c *chunker) error {
	mf := &s.e.mf
	if mf.end < len(mf.buf) {
		return nil
	}
	if err := enc.encodeMore(); err != nil {
		s.err = err
		return err
	}
	mf.shift(mf.cur-s.e.ahead, s.e.keepFor(c))
	if mf.end == len(mf.buf) {
		s.err = errs.Limit("lzma: window of %d bytes too small", len(mf.buf))
		return s.err
	}
	return nil
}

// readFrom reads r into the window until EOF.
func (s *encStream) readFrom(r io.Reader, enc moreEncoder, c *chunker) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	var n int64
	for {
		mf := &s.e.mf
		if err := s.room(enc, c); err != nil {
			return n, err
		}
		room := mf.buf[mf.end:]
		if k := s.e.cfg.knownSize; k >= 0 && int64(len(room)) > k-s.total+1 {
			room = room[:k-s.total+1] // one more byte reveals a longer input
		}
		k, err := r.Read(room)
		if kn := s.e.cfg.knownSize; kn >= 0 && s.total+int64(k) > kn {
			s.err = s.sizeErr(s.total + int64(k))
			return n, s.err
		}
		mf.end += k
		n += int64(k)
		s.total += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// sizeErr is the error for n bytes written against KnownSize.
func (s *encStream) sizeErr(n int64) error {
	return fmt.Errorf("lzma: %w: KnownSize(%d) but %d bytes written", errs.ErrInvalidOption, s.e.cfg.knownSize, n)
}

// close is Close for both writers: it encodes the rest with encode, has
// finish write the stream's end (end marker and range coder flush, or
// LZMA2's end byte), and calls release however it ends. A second Close
// returns nil after a clean one, else the first's error.
func (s *encStream) close(encode func(final bool) error, finish func() error, release func()) error {
	if s.closed {
		if s.err == ErrWriterClosed {
			return nil // closed cleanly before
		}
		return s.err
	}
	s.closed = true
	defer release()
	if s.err != nil {
		return s.err
	}
	if k := s.e.cfg.knownSize; k >= 0 && k != s.total {
		s.err = s.sizeErr(s.total)
		return s.err
	}
	if err := encode(true); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	s.err = ErrWriterClosed
	return nil
}

func (s *encStream) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if _, err := s.w.Write(b); err != nil {
		s.err = err
		return err
	}
	return nil
}

// Writer encodes a raw LZMA stream ("LZMA1"), as 7z's LZMA coder stores
// it with the properties of Props. Create it with NewWriter,
// NewWriterLZMAHeader or NewWriterZip; Close ends the stream; Reset
// reuses every buffer for the next one.
type Writer struct {
	encStream
	form   uint8 // 0 raw, 1 .lzma header, 2 ZIP
	marker bool
	opts   [16]WriterOption
	nopts  int
}

const (
	formRaw = iota
	formHeader
	formZip
)

// NewWriter returns an LZMA encoder writing a raw stream to w (no header;
// the properties are w.Props()). Without KnownSize, or with
// WriteEndMarker(true), the stream ends with an end marker.
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	return newWriter(w, formRaw, opts)
}

// NewWriterLZMAHeader returns an LZMA encoder writing the .lzma form: 5
// bytes of properties, the size from KnownSize as uint64 little endian
// (all ones without it, and then an end marker), then the stream.
func NewWriterLZMAHeader(w io.Writer, opts ...WriterOption) (*Writer, error) {
	return newWriter(w, formHeader, opts)
}

// NewWriterZip returns an LZMA encoder writing ZIP method 14 data: the
// 2-byte LZMA SDK version, the properties size (5) as uint16 little
// endian, the properties, then the stream ending with an end marker (as
// 7-Zip writes it: set general purpose flag bit 1 in the ZIP header).
func NewWriterZip(w io.Writer, opts ...WriterOption) (*Writer, error) {
	return newWriter(w, formZip, opts)
}

func newWriter(w io.Writer, form uint8, opts []WriterOption) (*Writer, error) {
	if len(opts) > len(Writer{}.opts) {
		return nil, fmt.Errorf("lzma: %w: %d options", errs.ErrInvalidOption, len(opts))
	}
	z := &Writer{form: form}
	z.nopts = copy(z.opts[:], opts)
	if err := z.e.cfg.resolve(opts, false); err != nil {
		return nil, err
	}
	if err := z.Reset(w); err != nil {
		return nil, err
	}
	return z, nil
}

// Props returns the properties of the stream (for 7z coder properties:
// Props().Encode()).
func (z *Writer) Props() Props { return z.e.cfg.props() }

// Reset discards z's state and starts a new stream to w with the same
// options, keeping every buffer.
func (z *Writer) Reset(w io.Writer) error {
	if err := z.e.cfg.resolve(z.opts[:z.nopts], false); err != nil {
		return err
	}
	z.w, z.err, z.total, z.closed = w, nil, 0, false
	z.marker = z.e.cfg.endMarker || z.e.cfg.knownSize < 0 || z.form == formZip
	z.e.open(windowFor(&z.e.cfg, false))
	p := z.e.cfg.props().Encode()
	switch z.form {
	case formHeader:
		var h [13]byte
		copy(h[:], p[:])
		binary.LittleEndian.PutUint64(h[5:], uint64(z.e.cfg.knownSize))
		return z.write(h[:])
	case formZip:
		h := [9]byte{lzmaSDKMajor, lzmaSDKMinor, 5, 0}
		copy(h[4:], p[:])
		return z.write(h[:])
	}
	return nil
}

// The LZMA SDK version written in the ZIP form (7-Zip writes its own).
const (
	lzmaSDKMajor = 25
	lzmaSDKMinor = 1
)

// encode encodes what the window holds (keeping the look-ahead unless
// final) and writes the output.
func (z *Writer) encode(final bool) error {
	z.e.mf.final = final
	for {
		st := z.e.run(nil)
		if err := z.write(z.e.rc.out); err != nil {
			return err
		}
		z.e.rc.flushed += int64(len(z.e.rc.out))
		z.e.rc.out = z.e.rc.out[:0]
		if st != runFull {
			return nil
		}
	}
}

func (z *Writer) encodeMore() error { return z.encode(false) }

// Write compresses p.
func (z *Writer) Write(p []byte) (int, error) {
	if z.closed {
		return 0, ErrWriterClosed
	}
	return z.fill(p, z, nil)
}

// ReadFrom compresses r until io.EOF, reading straight into the window.
func (z *Writer) ReadFrom(r io.Reader) (int64, error) {
	if z.closed {
		return 0, ErrWriterClosed
	}
	return z.readFrom(r, z, nil)
}

// Close encodes the rest, the end marker if any, flushes the range coder
// and returns the pooled memory. It does not close the underlying
// writer. With KnownSize, a different number of bytes written is an
// error matching errs.ErrInvalidOption.
func (z *Writer) Close() error {
	return z.close(z.encode, z.finish, z.e.close)
}

// finish ends the stream: the end marker if any, then the range coder's
// last bytes.
func (z *Writer) finish() error {
	if z.marker {
		z.e.encodeEndMarker()
	}
	z.e.rc.flush()
	if err := z.write(z.e.rc.out); err != nil {
		return err
	}
	z.e.rc.out = z.e.rc.out[:0]
	return nil
}

// Writer2 encodes an LZMA2 stream (7z's LZMA2 coder, xz's LZMA2 filter)
// whose dictionary property byte is DictByte. Create it with NewWriter2;
// Close writes the end byte; Reset reuses every buffer.
type Writer2 struct {
	encStream
	c     chunker
	outp  *[]byte // pooled chunk buffer
	opts  [16]WriterOption
	nopts int
	mt    *mtWriter // block mode (writer2_mt.go); nil: one solid stream
}

// NewWriter2 returns an LZMA2 encoder writing to w.
func NewWriter2(w io.Writer, opts ...WriterOption) (*Writer2, error) {
	if len(opts) > len(Writer2{}.opts) {
		return nil, fmt.Errorf("lzma: %w: %d options", errs.ErrInvalidOption, len(opts))
	}
	z := &Writer2{}
	z.nopts = copy(z.opts[:], opts)
	if err := z.e.cfg.resolve(opts, true); err != nil {
		return nil, err
	}
	if err := z.Reset(w); err != nil {
		return nil, err
	}
	return z, nil
}

// DictByte returns the LZMA2 dictionary property byte (7z coder
// properties, xz filter properties) for the dictionary in use.
func (z *Writer2) DictByte() byte { return dictByteFor(z.e.cfg.dictSize) }

// Reset discards z's state and starts a new stream to w with the same
// options, keeping every buffer.
func (z *Writer2) Reset(w io.Writer) error {
	if err := z.e.cfg.resolve(z.opts[:z.nopts], true); err != nil {
		return err
	}
	if ok, err := z.resetBlocks(w); ok {
		return err
	}
	z.w, z.err, z.total, z.closed = w, nil, 0, false
	z.e.open(windowFor(&z.e.cfg, true))
	z.c.reset(&z.e)
	if z.outp == nil {
		z.outp = pool.Get(lzma2UnpackMax + 1<<12) // one chunk, stored or not
	}
	return nil
}

func (z *Writer2) encode(final bool) error {
	for more := true; more; {
		var out []byte
		out, more = z.e.runLZMA2(&z.c, (*z.outp)[:0], final)
		if err := z.write(out); err != nil {
			return err
		}
	}
	return nil
}

func (z *Writer2) encodeMore() error { return z.encode(false) }

// Write compresses p.
func (z *Writer2) Write(p []byte) (int, error) {
	if z.mt != nil {
		return z.mt.write(p)
	}
	if z.closed {
		return 0, ErrWriterClosed
	}
	return z.fill(p, z, &z.c)
}

// ReadFrom compresses r until io.EOF, reading straight into the window.
func (z *Writer2) ReadFrom(r io.Reader) (int64, error) {
	if z.mt != nil {
		return z.mt.readFrom(r)
	}
	if z.closed {
		return 0, ErrWriterClosed
	}
	return z.readFrom(r, z, &z.c)
}

// Flush encodes everything written so far and ends the current chunk, so
// a reader of the output can decode all of it.
func (z *Writer2) Flush() error {
	if z.mt != nil {
		return z.mt.flush()
	}
	if z.closed {
		return ErrWriterClosed
	}
	if z.err != nil {
		return z.err
	}
	if err := z.encode(true); err != nil {
		return err
	}
	z.e.mf.final = false
	return nil
}

// Close encodes the rest, writes the end byte 0x00 and returns the pooled
// memory. It does not close the underlying writer.
func (z *Writer2) Close() error {
	if z.mt != nil {
		return z.mt.close()
	}
	return z.close(z.encode, z.writeEnd, z.release)
}

func (z *Writer2) writeEnd() error { return z.write(endByte[:]) }

func (z *Writer2) release() {
	z.e.close()
	z.c.release()
	pool.Put(z.outp)
	z.outp = nil
}

var endByte = [1]byte{ctrlEnd}
