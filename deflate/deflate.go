// Package deflate decodes Deflate (RFC 1951) and Deflate64 streams.
//
// TEMPORARY STUB: Deflate is delegated to compress/flate and Deflate64 is
// unsupported until our own decoder lands. The API below is the contract.
package deflate

import (
	"compress/flate"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Reader decodes one Deflate or Deflate64 stream. Reset reuses it.
type Reader struct {
	fr  io.ReadCloser
	d64 bool
}

// NewReader returns a Deflate decoder reading r.
func NewReader(r io.Reader) *Reader { z := new(Reader); z.Reset(r, false); return z }

// NewReader64 returns a Deflate64 decoder reading r.
func NewReader64(r io.Reader) *Reader { z := new(Reader); z.Reset(r, true); return z }

// Reset makes z decode a new stream from r (Deflate64 if d64).
func (z *Reader) Reset(r io.Reader, d64 bool) {
	z.d64 = d64
	if d64 {
		return
	}
	if z.fr == nil {
		z.fr = flate.NewReader(r)
	} else {
		z.fr.(flate.Resetter).Reset(r, nil)
	}
}

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) {
	if z.d64 {
		return 0, errs.Unsupported("Deflate64 (not yet implemented)")
	}
	n, err := z.fr.Read(p)
	if err != nil && err != io.EOF {
		if err == io.ErrUnexpectedEOF {
			return n, errs.Truncated("deflate stream")
		}
		return n, errs.Corrupt("deflate: %v", err)
	}
	return n, err
}

// Close releases scratch memory; z may be Reset again afterwards.
func (z *Reader) Close() error { return nil }
