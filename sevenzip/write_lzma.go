package sevenzip

import "io"

// lzmaCoders holds the LZMA and LZMA2 encoders of a writer.
type lzmaCoders struct {
	cp copyEnc
}

// get returns an encoder for cfg's method (header: the header's LZMA).
// Until the LZMA encoders exist, folders are stored with Copy.
func (l *lzmaCoders) get(cfg *writerConfig, dst io.Writer, header bool) (compressor, wcoder, error) {
	l.cp.w = dst
	return &l.cp, wcoder{method: mCopy}, nil
}

func (l *lzmaCoders) release() { l.cp.w = nil }
