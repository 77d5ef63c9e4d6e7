package zip

import (
	"io"
	"sync"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/xz"
)

// methodXZ is APPNOTE 4.4.5's method 95: the entry's data is an .xz
// stream. 7-Zip accepts concatenated streams and stream padding there and
// rejects anything else after the stream, which is also xz.Reader's
// default.
const methodXZ = 95

// xzReaders keeps the decoder values (their buffers go back to
// internal/pool on Close; the values hold the SHA-256 state and the
// LZMA2 decoder struct).
var xzReaders sync.Pool

func init() {
	register(methodXZ, &methodSpec{
		name: "XZ",
		check: func(f *file, lim *engine.Limits) error {
			// The input buffer and LZMA2 tables come first; the block
			// headers are checked by the decoder before it allocates.
			if lim.MaxMemory < xzFixed {
				return errs.Limit("XZ needs at least %d bytes of decoder memory, above MaxMemory (%d)", xzFixed, lim.MaxMemory)
			}
			return nil
		},
		open: openXZ,
		// Checkpoints between LZMA2 chunks (kind "xz", In in bytes).
		cpKind: "xz",
		firstPass: func(c *chain) cpDecoder {
			if c.oth == nil {
				return nil
			}
			if d, ok := c.oth.rc.(*xzEntry); ok {
				return d.z
			}
			return nil
		},
		resume: func(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error) {
			e, err := resumeXZ(x.r, x.f, &x.a.cfg, x.cp)
			if err != nil {
				return nil, nil, false, mapMethodErr(err)
			}
			return e, e.z, true, nil
		},
		stateFits: func(f *file, st []byte) bool {
			// The LZMA2 state (as LZMA's) and the xz framing's, at most
			// xz.CheckpointOverhead.
			window := (max(int64(f.usize), 4096) + 15) &^ 15
			return int64(len(st)) <= window+2*(4096+0x300<<4)+128+xz.CheckpointOverhead
		},
	})
}

// xzFixed is what an xz decoder holds whatever its blocks say: its input
// buffer, the LZMA2 input buffer and probability tables.
const xzFixed = 64<<10 + 64<<10 + 32<<10

// xzEntry is one entry's xz stream; Close puts the decoder back.
type xzEntry struct {
	z *xz.Reader
}

// xzOptions are the decoder options of entry f.
func xzOptions(f *file, cfg *arc.Config) [3]xz.Option {
	lim := &cfg.Bounds
	size := int64(-1)
	if f.Size >= 0 {
		size = int64(f.usize)
	}
	return [...]xz.Option{
		xz.MaxMemory(max(lim.MaxMemory-xzFixed, 1)),
		xz.MaxDict(lim.MaxDictionary),
		xz.UncompressedSize(size),
	}
}

// resumeXZ is an xz entry resumed from a checkpoint (xz.Reader.ResetAt)
// with r reading its data from the checkpoint's input offset.
func resumeXZ(r io.Reader, f *file, cfg *arc.Config, cp engine.Checkpoint) (*xzEntry, error) {
	opts := xzOptions(f, cfg)
	z, _ := xzReaders.Get().(*xz.Reader)
	if z == nil {
		z = new(xz.Reader)
	}
	if err := z.ResetAt(r, cp.State, cp.Out, cp.In, opts[:]...); err != nil {
		(&xzEntry{z: z}).Close()
		return nil, err
	}
	return &xzEntry{z: z}, nil
}

func openXZ(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
	opts := xzOptions(f, cfg)
	z, _ := xzReaders.Get().(*xz.Reader)
	var err error
	if z == nil {
		z, err = xz.NewReader(r, opts[:]...)
	} else {
		err = z.Reset(r, opts[:]...)
	}
	if err != nil {
		return nil, err
	}
	return &xzEntry{z: z}, nil
}

func (e *xzEntry) Read(p []byte) (int, error) {
	if e.z == nil {
		return 0, errClosed
	}
	return e.z.Read(p)
}

func (e *xzEntry) WriteTo(w io.Writer) (int64, error) {
	if e.z == nil {
		return 0, errClosed
	}
	return e.z.WriteTo(w)
}

func (e *xzEntry) Close() error {
	if e.z != nil {
		e.z.Close()
		xzReaders.Put(e.z)
		e.z = nil
	}
	return nil
}
