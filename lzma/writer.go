package lzma

import (
	"io"

	core "github.com/go-unarc/unarc/internal/lzma"
)

// Writer encodes an LZMA stream: the .lzma format (NewWriter) or a raw
// stream whose properties the caller stores (NewRawWriter, as 7z's LZMA
// coder and ZIP method 14 do). It encodes on the caller's goroutine.
type Writer struct {
	w *core.Writer
}

// NewWriter returns a writer of the .lzma format: 5 bytes of properties,
// the size given by WithKnownSize as uint64 little endian (all ones
// without it, and the stream then ends with an end marker), then the
// stream. The header is written at once.
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	return newWriter(w, core.NewWriterLZMAHeader, opts)
}

// NewRawWriter returns a writer of a raw LZMA stream, with no header: its
// properties are Props(). Without WithKnownSize, or with
// WithWriteEndMarker, it ends with an end marker. For ZIP method 14, write
// the LZMA SDK version (2 bytes), 5 and 0, and Props().Encode() before the
// stream, and use WithWriteEndMarker.
func NewRawWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	return newWriter(w, core.NewWriter, opts)
}

func newWriter(w io.Writer, mk func(io.Writer, ...core.WriterOption) (*core.Writer, error), opts []WriterOption) (*Writer, error) {
	var c writerConfig
	if err := c.apply(opts); err != nil {
		return nil, err
	}
	cw, err := mk(w, c.opts...)
	if err != nil {
		return nil, err
	}
	return &Writer{w: cw}, nil
}

// Props returns the properties of the stream (for a 7z coder:
// Props().Encode()).
func (z *Writer) Props() Props { return Props(z.w.Props()) }

// Write compresses p.
func (z *Writer) Write(p []byte) (int, error) {
	n, err := z.w.Write(p)
	return n, pub(err)
}

// ReadFrom compresses r until io.EOF, reading straight into the window.
func (z *Writer) ReadFrom(r io.Reader) (int64, error) {
	n, err := z.w.ReadFrom(r)
	return n, pub(err)
}

// Close encodes the rest, writes the end marker if any and flushes to the
// underlying writer, which it does not close; the buffers go back to the
// pools. With WithKnownSize, a different number of bytes written is an
// error matching unarc.ErrInvalidOption.
func (z *Writer) Close() error { return pub(z.w.Close()) }

// Reset discards z's state and starts a new stream to w with the same
// options, keeping its buffers.
func (z *Writer) Reset(w io.Writer) error { return z.w.Reset(w) }

// Writer2 encodes an LZMA2 stream (the coder of 7z's LZMA2 method and of
// xz's LZMA2 filter). With WithThreads(n > 1) it encodes independent
// blocks on n goroutines (shared by every Writer2 of the process, ending
// half a second after their last block); the output is the same whatever
// n. Its methods must not be called concurrently. An error of the
// destination stops the writer: every later call returns it.
type Writer2 struct {
	w *core.Writer2
}

// NewWriter2 returns an LZMA2 writer to w. Read the stream back with
// NewReader2(r, DictSize(), size).
func NewWriter2(w io.Writer, opts ...WriterOption) (*Writer2, error) {
	var c writerConfig
	if err := c.apply(opts); err != nil {
		return nil, err
	}
	cw, err := core.NewWriter2(w, c.opts...)
	if err != nil {
		return nil, err
	}
	return &Writer2{w: cw}, nil
}

// DictSize returns the dictionary size the stream declares (as the
// one-byte LZMA2 property of 7z and xz encodes it): the size a reader
// must be given.
func (z *Writer2) DictSize() int64 {
	n, _ := core.DictSizeLZMA2(z.w.DictByte())
	return n
}

// Write compresses p.
func (z *Writer2) Write(p []byte) (int, error) {
	n, err := z.w.Write(p)
	return n, pub(err)
}

// ReadFrom compresses r until io.EOF, reading straight into the window.
func (z *Writer2) ReadFrom(r io.Reader) (int64, error) {
	n, err := z.w.ReadFrom(r)
	return n, pub(err)
}

// Flush encodes everything written so far and ends the current chunk, so
// a reader of what was written so far can decode all of it.
func (z *Writer2) Flush() error { return pub(z.w.Flush()) }

// Close encodes the rest, writes the end byte 0x00 and returns the
// buffers to the pools; it does not close the underlying writer.
func (z *Writer2) Close() error { return pub(z.w.Close()) }

// Reset discards z's state and starts a new stream to w with the same
// options, keeping its buffers.
func (z *Writer2) Reset(w io.Writer) error { return z.w.Reset(w) }
