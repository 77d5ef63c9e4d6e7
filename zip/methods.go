package zip

import (
	"compress/bzip2"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/internal/arc"
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
	r    io.Reader
	zd   *zstd.Decoder // nil for BZip2
	name string
}

func newOtherReader(method uint16, r io.Reader, f *file, cfg *arc.Config) (*otherReader, error) {
	o := &otherReader{name: f.Name}
	switch method {
	case methodBZip2:
		o.r = bzip2.NewReader(r)
	case methodZstd:
		lim := cfg.Limits.WithDefaults()
		zd, err := zstd.NewReader(r,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(uint64(min(lim.MaxDictionary, 1<<31))),
			zstd.WithDecoderMaxMemory(uint64(lim.MaxEntrySize)))
		if err != nil {
			return nil, errs.Corrupt("%s: zstd: %v", f.Name, err)
		}
		o.r, o.zd = zd, zd
	default:
		return nil, errs.Unsupported("%s: compression method %s (%d)", f.Name, methodName(method), method)
	}
	return o, nil
}

func (o *otherReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = errs.Truncated(o.name + ": compressed data")
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		err = errs.Limit("%s: zstd: %v", o.name, err)
	case isSentinel(err):
	default:
		err = errs.Corrupt("%s: %v", o.name, err)
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
