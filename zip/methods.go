package zip

import (
	"compress/bzip2"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// Methods whose decoders come from elsewhere: BZip2 from the standard
// library, Zstandard from klauspost/compress (APPNOTE 4.4.5: 12 and 93).
// Both read ahead of their stream, so callers hand them a bounded source
// (the entry's section, or the descriptor scan of a stream).
const (
	methodBZip2 = 12
	methodZstd  = 93
)

// otherReader adapts such a decoder: its errors become the package's
// sentinels and Close releases what the decoder holds.
type otherReader struct {
	r      io.Reader
	zd     *zstd.Decoder // nil for BZip2
	window uint64        // the zstd window bound, for the error message
}

// zstdOverhead is what the zstd decoder holds besides its window: two
// blocks of ring space and the block decoder's buffers.
const zstdOverhead = 1 << 20

// zstdMinStreamWindow is the window a streaming zstd encoder (no pledged
// size, as zip writers use it) writes for any input; smaller declared
// entries still get this much, so their archives open.
const zstdMinStreamWindow = 8 << 20

// zstdWindow is the largest zstd window f may use: MaxDictionary, what
// MaxMemory leaves after the decoder's own buffers, and, when the size is
// known, no more than a power of two at or above it (what an encoder that
// knows the size writes) or the streaming default, whichever is larger.
// The decoder allocates its whole window up front, so this bounds memory.
func zstdWindow(f *file, lim *arc.Limits) uint64 {
	w := uint64(min(lim.MaxDictionary, lim.MaxMemory-zstdOverhead, 1<<40))
	if f.Size >= 0 {
		c := uint64(zstdMinStreamWindow)
		for c < f.usize && c < 1<<40 {
			c <<= 1
		}
		w = min(w, c)
	}
	return max(w, zstd.MinWindowSize)
}

func newOtherReader(method uint16, r io.Reader, f *file, cfg *arc.Config) (*otherReader, error) {
	o := &otherReader{}
	switch method {
	case methodBZip2:
		o.r = bzip2.NewReader(r)
	case methodZstd:
		lim := cfg.Limits.WithDefaults()
		if lim.MaxMemory < zstdOverhead+zstd.MinWindowSize {
			return nil, errs.Limit("zstd needs at least %d bytes of decoder memory, above MaxMemory (%d)", zstdOverhead+zstd.MinWindowSize, lim.MaxMemory)
		}
		o.window = zstdWindow(f, &lim)
		zd, err := zstd.NewReader(r,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(o.window),
			zstd.WithDecoderMaxMemory(uint64(lim.MaxMemory)))
		if err != nil {
			return nil, errs.Corrupt("zstd: %v", err)
		}
		o.r, o.zd = zd, zd
	default:
		return nil, errs.Unsupported("compression method %s (%d)", methodName(method), method)
	}
	return o, nil
}

func (o *otherReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = errs.Truncated("compressed data")
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		err = errs.Limit("zstd: window above %d bytes (bounded by MaxDictionary, MaxMemory and the entry's size)", o.window)
	case isSentinel(err):
	default:
		err = errs.Corrupt("%v", err)
	}
	return n, err
}

// Close releases the Zstandard decoder; BZip2 holds nothing.
func (o *otherReader) Close() error {
	if o.zd != nil {
		o.zd.Close()
		o.zd = nil
	}
	return nil
}

func isSentinel(err error) bool {
	for _, s := range []error{errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum, errs.ErrLimit, errs.ErrFormat} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
