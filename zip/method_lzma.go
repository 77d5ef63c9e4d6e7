package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
)

// LZMA (APPNOTE 5.8, method 14): a 9-byte header (version, size of the
// properties, the properties) and an LZMA stream, with an end marker
// when flag bit 1 says so. Its decoder lives in the pooled entry state.
// Checkpoints wherever the decoder has handed out all it decoded (kind
// "lzma", In in bytes of the raw stream after the header).
const methodLZMA = 14

func init() {
	register(methodLZMA, &methodSpec{
		name: "LZMA",
		openChain: func(c *chain, src io.Reader, f *file, cfg *arc.Config) (io.Reader, error) {
			// The LZMA decoder buffers its own input; the section bounds it.
			lz, err := resetLZMA(&c.lz, src, f, cfg)
			c.lz = lz
			if err != nil {
				return nil, err
			}
			return lz, nil
		},
		cpKind:  "lzma",
		cpInOff: lzmaHeaderLen,
		firstPass: func(c *chain) cpDecoder {
			if c.lz != nil {
				return c.lz
			}
			return nil
		},
		resume: resumeLZMA,
		stateFits: func(f *file, st []byte) bool {
			// The window (at most the entry's size, 16-byte rounded), the
			// probabilities (lc+lp at most 4) and a few coder fields; the
			// decoder checks it against the header's properties.
			window := (max(int64(f.usize), 4096) + 15) &^ 15
			return int64(len(st)) <= window+2*(4096+0x300<<4)+128
		},
	})
}

// lzmaHeaderLen is the size of method 14's header: version (2), size of
// the properties (2), the properties (5).
const lzmaHeaderLen = 9

// resetLZMA points *lz (made on first use) at method 14 data in r: the
// size is trusted unless flag bit 1 announces an end marker.
func resetLZMA(lz **lzma.Reader, r io.Reader, f *file, cfg *arc.Config) (*lzma.Reader, error) {
	size := int64(f.usize)
	if f.flags&flagLZMAEOS != 0 {
		size = -1
	}
	// The decoder sizes its window by the declared size. No LZMA stream
	// expands more than about 7,500:1 (a saturated rep-match costs some
	// 0.3 bits per 273 bytes), so a header claiming far more is lying and
	// must not make us allocate for it.
	if size > 1<<20 && f.csize < uint64(size)>>15 {
		return *lz, errs.Corrupt("%d packed bytes cannot hold %d bytes of LZMA data", f.csize, size)
	}
	if *lz == nil {
		*lz = new(lzma.Reader)
	}
	// The window is the decoder's memory: it answers to both limits.
	err := (*lz).ResetZip(r, size, lzma.MaxDict(min(cfg.Bounds.MaxDictionary, cfg.Bounds.MaxMemory)))
	return *lz, err
}

// resumeLZMA restarts an LZMA entry; the properties are in the
// stream's header, before the checkpoint's byte.
func resumeLZMA(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error) {
	hr, err := x.header()
	if err != nil {
		return nil, nil, false, err
	}
	var h [lzmaHeaderLen]byte
	if _, err := io.ReadFull(hr, h[:]); err != nil {
		return nil, nil, false, errs.EOF(err, "zip lzma header")
	}
	if n := uint16(h[2]) | uint16(h[3])<<8; n != 5 {
		return nil, nil, false, errs.Corrupt("zip lzma: properties size %d, want 5", n)
	}
	p, err := lzma.DecodeProps(h[4:])
	if err != nil {
		return nil, nil, false, err
	}
	f, lim := x.f, &x.a.cfg.Bounds
	usize := int64(f.usize)
	if f.flags&flagLZMAEOS != 0 {
		usize = -1
	}
	z := new(lzma.Reader)
	if err := z.ResetAt(x.r, p, usize, x.cp.State, x.cp.Out, x.cp.In, lzma.MaxDict(min(lim.MaxDictionary, lim.MaxMemory))); err != nil {
		z.Close()
		return nil, nil, false, err
	}
	return z, z, false, nil
}
