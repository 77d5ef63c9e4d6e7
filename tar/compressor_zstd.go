package tar

import (
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/zstdframe"
)

// zstd (klauspost/compress), frames bounded by zstdframe; checkpoints
// at frame boundaries ("zstd").

var (
	zstdPool     = pool.Of[zstd.Decoder]{New: func() *zstd.Decoder { return newZstd(1) }}
	zstdPool2    = pool.Of[zstd.Decoder]{New: func() *zstd.Decoder { return newZstd(2) }}
	zstdDecoders = pool.Of[zstdDecoder]{}
)

func init() {
	register(&compressor{
		kind:     kindZstd,
		name:     "zstd",
		ext:      "zst",
		suffixes: [][2]string{{".tzst", ".tar"}, {".zst", ""}, {".zstd", ""}},
		sniff: func(b []byte) bool {
			return len(b) >= 4 && string(b[:4]) == "\x28\xb5\x2f\xfd" ||
				len(b) >= 4 && b[0]&0xf0 == 0x50 && string(b[1:4]) == "\x2a\x4d\x18" // a skippable frame (magic 0x184D2A5?) first
		},
		check: func(head []byte) string {
			// The frame header descriptor's Content_Checksum_flag (a
			// stream opening with a skippable frame says nothing).
			if len(head) >= 5 && string(head[:4]) == "\x28\xb5\x2f\xfd" && head[4]&0x04 != 0 {
				return "zstd XXH64"
			}
			return ""
		},
		open:   openZstd,
		cpKind: cpZstd,
		stream: func(a *Archive, cp *engine.Checkpoint, in *countReader, _ int64) (cpStream, error) {
			z := &zstdStream{zd: zstdPool.Get()}
			return z, z.start(a, cp, in)
		},
		cpStateMax: func(*engine.Limits) int64 { return zstdframe.StateLen },
		mapErr: func(kind compKind, err error) error {
			switch {
			case errors.Is(err, zstd.ErrCRCMismatch):
				return checksumErr("%s", detail(kind, err))
			case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
				return errs.Limit("%s (MaxDictionary/MaxMemory)", detail(kind, err))
			}
			return nil
		},
	})
}

// zstdExtra bounds what the concurrent zstd decoder holds beyond the
// window: a second block decoder (literals and sequences of a 128 KiB
// block, about 0.5 MiB) and its queues.
const zstdExtra = 1 << 20

// newZstd is a stream decoder with n blocks in flight (1: it decodes on
// the caller's goroutine). Low-memory mode sizes its block buffers to
// the blocks met, not to the largest a frame may hold.
func newZstd(n int) *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(n), zstd.WithDecoderLowmem(true))
	if err != nil {
		panic(err) // the options are constant
	}
	return d
}

// zstdDecoder is a pooled zstd decoder and the frame reader it reads
// (which holds each frame's window to the limits; the decoder passes
// its errors on; with Workers > 1 it reads zf on its own goroutine).
type zstdDecoder struct {
	zs   *zstd.Decoder
	conc bool // zs is from zstdPool2 (concurrent)
	zf   zstdframe.Reader
}

func openZstd(_ *decomp, src io.Reader, size int64, lim *engine.Limits, workers int, zcap uint64) (decoder, error) {
	// Each frame's window is held to the limits and to what the
	// input can fill before the decoder sees the frame (zstdframe's
	// Bound): the decoder allocates a frame's whole window when the
	// frame starts.
	b := zstdframe.BoundOf(lim, size, 0)
	win := b.MaxWindow
	if zcap > 0 {
		// Detection: any window is lowered, none refused (the
		// stream's own pass refuses it).
		b.MaxWindow, b.Cap = 0, zcap
	}
	// A pooled decoder, Reset per stream (a new one costs its window
	// ring, MiBs). With Workers > 1 it is klauspost's concurrent
	// stream decoder: one goroutine reads the frames and decodes
	// literals, one decodes sequences, one executes them into the
	// window, and the caller's Read hashes (XXH64) and copies out, so
	// the stages overlap on two cores; two blocks in flight are
	// enough to keep that pipeline fed (more adds memory, not speed).
	// It replaces the read-ahead ring (aheadWindow), which would only
	// add a copy. Its extra block decoder (about 0.5 MiB) is less
	// than that ring, and counted against MaxMemory (zstdExtra) on top
	// of the window: without room for both, the single-goroutine
	// decoder is used, so a worker count never changes what the
	// limits admit. release's Reset(nil) waits until the goroutines no
	// longer read the source and returns the blocks.
	z := zstdDecoders.Get()
	if workers > 1 && int64(win) <= lim.MaxMemory-zstdExtra {
		z.zs, z.conc = zstdPool2.Get(), true
	} else {
		z.zs = zstdPool.Get()
	}
	z.zf.SetBound(b)
	z.zf.SetContinuous(true)
	z.zf.Reset(src, false)
	return z, z.zs.ResetWithOptions(&z.zf, zstd.WithDecoderMaxWindow(win), zstd.WithDecoderMaxMemory(win))
}

func (z *zstdDecoder) Read(p []byte) (int, error) { return z.zs.Read(p) }

func (z *zstdDecoder) release() {
	z.zs.Reset(nil)
	if z.conc {
		zstdPool2.Put(z.zs)
	} else {
		zstdPool.Put(z.zs)
	}
	*z = zstdDecoder{}
	zstdDecoders.Put(z)
}

// zstdStream decodes the stream frame by frame with a pooled serial
// decoder (zstdframe.Stream), taking checkpoints between frames.
type zstdStream struct {
	zstdframe.Stream
	zd *zstd.Decoder
}

func (z *zstdStream) start(a *Archive, cp *engine.Checkpoint, in io.Reader) error {
	at := int64(0)
	if cp != nil {
		at = cpInByte(cp)
	}
	b := zstdframe.BoundOf(&a.lim, a.size-at, 0) // as decomp.open; in starts at at
	z.SetBound(b)
	win := b.MaxWindow
	opts := []zstd.DOption{zstd.WithDecoderMaxWindow(win), zstd.WithDecoderMaxMemory(win)}
	if cp == nil {
		return z.Reset(z.zd, in, 0, 0, nil, opts...)
	}
	return z.Reset(z.zd, in, cp.In, cp.Out, cp.State, opts...)
}

func (z *zstdStream) Close() {
	if z.zd != nil {
		z.zd.Reset(nil)
		zstdPool.Put(z.zd)
		z.zd = nil
	}
}
