package deflate

import (
	"errors"
	"io"

	core "github.com/go-unarc/unarc/internal/deflate"
)

// Reader decodes one Deflate or Deflate64 stream. Create it with
// NewReader or NewReader64; decode with Read or io.Copy (WriteTo writes
// straight from the window); Close returns its buffers to the package's
// pools. A Reader is not safe for concurrent use.
type Reader struct {
	z   *core.Reader
	d64 bool
}

// NewReader returns a Deflate (RFC 1951) reader of r, as compress/flate
// reads it: raw Deflate, no zlib or gzip header.
func NewReader(r io.Reader) *Reader { return &Reader{z: core.NewReader(r)} }

// NewReader64 returns a Deflate64 reader of r (ZIP method 9, 7z's
// Deflate64 coder).
func NewReader64(r io.Reader) *Reader { return &Reader{z: core.NewReader64(r), d64: true} }

var errNilSource = errors.New("deflate: Reset with a nil source")

// Reset makes z decode a new stream of the same kind (Deflate or
// Deflate64) from r, keeping its buffers. It may be called after Close.
func (z *Reader) Reset(r io.Reader) error {
	if r == nil {
		return errNilSource
	}
	z.z.Reset(r, z.d64)
	return nil
}

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) { return z.z.Read(p) }

// WriteTo writes the rest of the stream to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) { return z.z.WriteTo(w) }

// Buffered returns the bytes the reader took from its source beyond what
// it used, when it had to buffer the source (see the package doc): after
// the end of the stream, the start of what followed it. The slice is
// valid until the next Read, Reset or Close.
func (z *Reader) Buffered() []byte { return z.z.Buffered() }

// Close returns the buffers to the pools. Reads fail afterwards until
// Reset.
func (z *Reader) Close() error { return z.z.Close() }
