package zip

import (
	"io"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/internal/lzma"
)

// writable reports whether the Writer compresses with method m.
func writable(m uint16) bool {
	switch m {
	case Store, Deflate, LZMA, Zstd:
		return true
	}
	return false
}

// version returns the "version needed" of method m (APPNOTE 4.4.3.2).
func methodVersion(m uint16) uint16 {
	switch m {
	case LZMA, Zstd:
		return verLZMA
	}
	return verDefault
}

// compressor is an encoder a Writer keeps from entry to entry.
type compressor interface {
	io.WriteCloser
	Flush() error
}

// encoders holds a Writer's encoders, made on first use and kept (in
// the pooled state) for the next entries and archives with the same
// level.
type encoders struct {
	flate      *flate.Writer
	flateLevel int
	zstd       *zstd.Encoder
	zstdLevel  zstd.EncoderLevel
	lzma       [2]*lzma.Writer // an entry's whole, a long entry's
	lzmaLevel  [2]int
	open       io.Closer // an encoder with a stream open (closed on release)
}

// lzmaFlusher gives the LZMA encoder the Flush it lacks: a Writer
// never calls it for LZMA (the head is not judged, see startStream).
type lzmaFlusher struct{ *lzma.Writer }

func (lzmaFlusher) Flush() error { return nil }

func zstdLevel(l int) zstd.EncoderLevel {
	switch {
	case l <= 2:
		return zstd.SpeedFastest
	case l <= 5:
		return zstd.SpeedDefault
	case l <= 7:
		return zstd.SpeedBetterCompression
	}
	return zstd.SpeedBestCompression
}

// get returns the encoder of method m at level l with a new stream to
// dst; whole says the entry is in the head, all of it.
func (e *encoders) get(m uint16, l int, dst io.Writer, whole bool) (compressor, error) {
	switch m {
	case Deflate:
		if e.flate == nil || e.flateLevel != l {
			fw, err := flate.NewWriter(dst, l)
			if err != nil {
				return nil, err
			}
			e.flate, e.flateLevel = fw, l
		} else {
			// Not Reset: after ResetDict (a segment) it would fill the
			// window with that segment's dictionary again.
			e.flate.ResetDict(dst, nil)
		}
		e.open = e.flate
		return e.flate, nil
	case Zstd:
		zl := zstdLevel(l)
		if e.zstd == nil || e.zstdLevel != zl {
			if e.zstd != nil {
				e.zstd.Close()
			}
			zw, err := zstd.NewWriter(dst, zstd.WithEncoderLevel(zl), zstd.WithEncoderConcurrency(1),
				zstd.WithLowerEncoderMem(true))
			if err != nil {
				return nil, err
			}
			e.zstd, e.zstdLevel = zw, zl
		} else {
			e.zstd.Reset(dst)
		}
		e.open = e.zstd
		return e.zstd, nil
	case LZMA:
		// An entry that fits the head needs no larger dictionary: the
		// level's (16 MiB at 5, 64 MiB from 7) would cost ten times it
		// in encoder memory for nothing.
		k, opts := 1, []lzma.WriterOption{lzma.Level(l)}
		if whole {
			k, opts = 0, append(opts, lzma.DictSize(headSize))
		}
		var err error
		if e.lzma[k] == nil || e.lzmaLevel[k] != l {
			e.lzma[k], err = lzma.NewWriterZip(dst, opts...)
			e.lzmaLevel[k] = l
		} else {
			err = e.lzma[k].Reset(dst)
		}
		if err != nil {
			e.lzma[k] = nil
			return nil, err
		}
		e.open = e.lzma[k]
		return lzmaFlusher{e.lzma[k]}, nil
	}
	return nil, invalid("method %d", m)
}

// deflateDict returns the Deflate encoder at level with a new stream to
// dst whose window starts with dict.
func (e *encoders) deflateDict(l int, dst io.Writer, dict []byte) *flate.Writer {
	if e.flate == nil || e.flateLevel != l {
		fw, err := flate.NewWriterDict(dst, l, dict)
		if err != nil {
			panic("zip writer: Deflate level " + itoa(l)) // levels are checked by WithLevel
		}
		e.flate, e.flateLevel = fw, l
	} else {
		e.flate.ResetDict(dst, dict)
	}
	e.open = e.flate
	return e.flate
}

// done says the open stream was closed.
func (e *encoders) done() { e.open = nil }

// release closes an encoder left open (after an error), which returns
// its pooled memory.
func (e *encoders) release() {
	if e.open != nil {
		e.open.Close()
		e.open = nil
	}
}
