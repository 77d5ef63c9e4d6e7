package zip

import (
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/zstdframe"
)

// Zstandard (APPNOTE 4.4.5: method 93; 20 is the deprecated early id)
// comes from klauspost/compress. Checkpoints at frame boundaries (kind
// "zstd", In in bytes): a fresh decoder starts at the next frame.
const methodZstd = 93

func init() {
	zs := &methodSpec{
		name:    "Zstd",
		check:   checkZstd,
		open:    openZstd,
		workers: true,
		cpKind:  "zstd",
		firstPass: func(c *chain) cpDecoder {
			if c.oth == nil {
				return nil
			}
			if d, ok := c.oth.rc.(*zstdReader); ok {
				if fs := d.framed(); fs != nil {
					return fs
				}
			}
			return nil
		},
		resume:    resumeZstd,
		stateFits: func(_ *file, st []byte) bool { return len(st) == zstdframe.StateLen }, // the magic at In is checked on resuming
	}
	register(methodZstd, zs)
	register(20, zs)
}

// resumeZstd starts a fresh decoder at the frame the checkpoint is at
// (Reset checks its magic).
func resumeZstd(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error) {
	lim := &x.a.cfg.Bounds
	z := &zstdReader{window: zstdWindow(x.f, lim), maxMem: uint64(lim.MaxMemory), workers: 1, lim: lim}
	zd, err := zstd.NewReader(nil, append(z.options(), zstd.WithDecoderConcurrency(1))...)
	if err != nil {
		return nil, nil, false, errs.Corrupt("zstd: %v", err)
	}
	z.zd, z.fs = zd, new(zstdframe.Stream)
	z.fs.SetBound(z.bound())
	if err := z.fs.Reset(zd, x.r, x.cp.In, x.cp.Out, x.cp.State); err != nil {
		z.Close()
		return nil, nil, false, err
	}
	return z, z.fs, true, nil
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
func zstdWindow(f *file, lim *engine.Limits) uint64 {
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

func checkZstd(f *file, lim *engine.Limits) error {
	if lim.MaxMemory < zstdOverhead+zstd.MinWindowSize {
		return errs.Limit("zstd needs at least %d bytes of decoder memory, above MaxMemory (%d)", zstdOverhead+zstd.MinWindowSize, lim.MaxMemory)
	}
	return nil
}

// zstdReader maps the window errors to ErrLimit and closes the decoder.
// The decoder is made at the first Read, so that a seekable reader's
// first pass can ask for frame-by-frame decoding (framed) before it.
type zstdReader struct {
	src     io.Reader
	zd      *zstd.Decoder
	fs      *zstdframe.Stream // frame by frame, taking checkpoints
	zf      *zstdframe.Reader // else zd's source, holding each frame to bound (zd passes its errors on)
	window  uint64            // the bound, also for the error message
	lim     *engine.Limits    // MaxRatio, RatioFloor for bound
	maxMem  uint64
	workers int
	err     error
}

func openZstd(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
	lim := &cfg.Bounds
	z := &zstdReader{src: r, window: zstdWindow(f, lim), maxMem: uint64(lim.MaxMemory), lim: lim}
	z.workers = zstdWorkers(cfg, z.window)
	return z, nil
}

// zstdOptions are the decoder's bounds (not its concurrency).
func (z *zstdReader) options() []zstd.DOption {
	return []zstd.DOption{zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(z.window), zstd.WithDecoderMaxMemory(z.maxMem)}
}

// framed makes z decode frame by frame on the caller's goroutine
// (zstdframe.Stream), so that it can take checkpoints between frames;
// nil once z has started.
func (z *zstdReader) framed() cpDecoder {
	if z.zd != nil || z.err != nil {
		return nil
	}
	z.fs, z.workers = new(zstdframe.Stream), 1
	return z.fs
}

// start makes the decoder.
func (z *zstdReader) start() error {
	zd, err := zstd.NewReader(nil, append(z.options(), zstd.WithDecoderConcurrency(z.workers))...)
	if err != nil {
		return errs.Corrupt("zstd: %v", err)
	}
	z.zd = zd
	if z.fs != nil {
		z.fs.SetBound(z.bound())
		return z.fs.Reset(zd, z.src, 0, 0, nil)
	}
	z.zf = new(zstdframe.Reader)
	z.zf.SetBound(z.bound())
	z.zf.SetContinuous(true)
	z.zf.Reset(z.src, false)
	return zd.Reset(z.zf)
}

// bound holds each frame's window to z.window before the decoder
// allocates it, and to what the entry's data can fill or, at MaxRatio,
// produce: its source ends with the entry, which the frame reader finds
// by reading ahead. (The root holds the archive's output to MaxRatio as
// a whole; a window, though, serves one entry's output, so one beyond
// what the entry's own bytes may produce is refused.)
func (z *zstdReader) bound() zstdframe.Bound {
	b := zstdframe.Bound{MaxWindow: z.window, Size: -1}
	if z.lim != nil {
		b.MaxRatio, b.RatioFloor = z.lim.MaxRatio, z.lim.RatioFloor
	}
	return b
}

// zstdWorkers is the decoder goroutines an entry may use: Config.Workers,
// fewer if MaxMemory cannot hold each one's buffers beside the window.
func zstdWorkers(cfg *arc.Config, window uint64) int {
	n := max(cfg.Workers, 1)
	if fit := (uint64(cfg.Bounds.MaxMemory) - window) / zstdOverhead; uint64(n) > fit {
		n = max(int(fit), 1)
	}
	return n
}

func (z *zstdReader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.zd == nil {
		if z.err = z.start(); z.err != nil {
			return 0, z.err
		}
	}
	var (
		n   int
		err error
	)
	if z.fs != nil {
		n, err = z.fs.Read(p)
	} else {
		n, err = z.zd.Read(p)
	}
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		err = errs.Limit("zstd: window above %d bytes (bounded by MaxDictionary, MaxMemory and the entry's size)", z.window)
	}
	return n, err
}

func (z *zstdReader) Close() error {
	if z.zd != nil {
		z.zd.Close()
	}
	z.err = errClosed
	return nil
}
