package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/implode"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/reduce"
	"github.com/go-unarc/unarc/internal/shrink"
)

// The legacy PKZIP methods (APPNOTE 5.1 to 5.3): Shrink (1), Reduce with
// factors 1 to 4 (2 to 5) and Implode (6). Their streams have no end
// marker and end at the entry's size, so an entry whose size comes only
// after its data (a forward-only stream with a data descriptor) cannot
// be decoded. Their decoders hold fixed tables of a few tens of KiB.
const (
	methodShrink  = 1
	methodImplode = 6

	flagImplode8K  = 1 << 1 // method 6: 8 KiB window (else 4 KiB)
	flagImplodeLit = 1 << 2 // method 6: a literal tree (three trees, minimum match 3)
)

// legacySize is the size a legacy stream decodes to.
func legacySize(f *file, name string) (int64, error) {
	if f.Size < 0 {
		return 0, errs.Unsupported("%s entry whose size is only in its data descriptor (the stream has no end marker)", name)
	}
	return f.Size, nil
}

// The decoders are pooled whole: Close gives back their tables and then
// the decoder itself. Only the registry's methodReader holds one, and it
// drops it on Close, so a reused decoder is never reachable from the
// entry that had it before.
type (
	pooledShrink  struct{ shrink.Reader }
	pooledReduce  struct{ reduce.Reader }
	pooledImplode struct{ implode.Reader }
)

var (
	shrinkPool  pool.Of[pooledShrink]
	reducePool  pool.Of[pooledReduce]
	implodePool pool.Of[pooledImplode]
)

func (z *pooledShrink) Close() error  { z.Reader.Close(); shrinkPool.Put(z); return nil }
func (z *pooledReduce) Close() error  { z.Reader.Close(); reducePool.Put(z); return nil }
func (z *pooledImplode) Close() error { z.Reader.Close(); implodePool.Put(z); return nil }

func init() {
	// Checkpoints (kinds "shrink", "reduce", "implode", In in bits) hold
	// the decoder's state; Implode's trees and Reduce's follower sets
	// are read again from the stream's start (resumeLegacy).
	register(methodShrink, &methodSpec{
		name:      "Shrink",
		cpKind:    "shrink",
		cpInBits:  true,
		firstPass: func(c *chain) cpDecoder { return legacyDecoder(c) },
		resume:    resumeLegacy,
		stateFits: func(_ *file, st []byte) bool { return len(st) == shrink.StateSize },
		check:     memCheck("Shrink", shrink.Memory),
		open: func(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
			n, err := legacySize(f, "Shrink")
			if err != nil {
				return nil, err
			}
			z := shrinkPool.Get()
			z.Reset(r, n)
			return z, nil
		},
	})
	for factor := 1; factor <= 4; factor++ {
		name := "Reduce" + string(rune('0'+factor))
		register(uint16(1+factor), &methodSpec{
			name:      name,
			cpKind:    "reduce",
			cpInBits:  true,
			firstPass: func(c *chain) cpDecoder { return legacyDecoder(c) },
			resume:    resumeLegacy,
			stateFits: func(_ *file, st []byte) bool { return len(st) >= 7 && len(st) <= 7+4<<10 }, // the run layer, at most the 4 KiB window
			check:     memCheck(name, reduce.Memory),
			open: func(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
				n, err := legacySize(f, name)
				if err != nil {
					return nil, err
				}
				z := reducePool.Get()
				z.Reset(r, n, factor)
				return z, nil
			},
		})
	}
	register(methodImplode, &methodSpec{
		name:      "Implode",
		cpKind:    "implode",
		cpInBits:  true,
		firstPass: func(c *chain) cpDecoder { return legacyDecoder(c) },
		resume:    resumeLegacy,
		stateFits: func(_ *file, st []byte) bool { return len(st) >= 2 && len(st) <= 2+8<<10 }, // version, flags, at most the 8 KiB window
		check:     memCheck("Implode", implode.Memory),
		open: func(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
			n, err := legacySize(f, "Implode")
			if err != nil {
				return nil, err
			}
			z := implodePool.Get()
			z.Reset(r, n, f.flags&flagImplode8K != 0, f.flags&flagImplodeLit != 0)
			return z, nil
		},
	})
}

// legacyDecoder is the Shrink, Reduce or Implode decoder of an entry
// opened with c (nil: none).
func legacyDecoder(c *chain) cpDecoder {
	if c.oth == nil {
		return nil
	}
	switch d := c.oth.rc.(type) {
	case *pooledShrink:
		return &d.Reader
	case *pooledImplode:
		return &d.Reader
	case *pooledReduce:
		return &d.Reader
	}
	return nil
}

// resumeLegacy is a Shrink, Implode or Reduce entry resumed from a
// checkpoint: the header reads its data from the start (the trees, the
// follower sets), x.r from the checkpoint's byte.
func resumeLegacy(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error) {
	hdr, err := x.header()
	if err != nil {
		return nil, nil, false, err
	}
	rc, z, err := resumeLegacyAt(hdr, x.r, x.f, x.cp)
	if err != nil {
		return nil, nil, false, mapMethodErr(err)
	}
	return rc, z, false, nil
}

func resumeLegacyAt(hdr, r io.Reader, f *file, cp engine.Checkpoint) (io.ReadCloser, cpDecoder, error) {
	switch f.method {
	case methodShrink:
		z := shrinkPool.Get()
		if err := z.ResetAt(r, int64(f.usize), cp.State, cp.Out, cp.In); err != nil {
			z.Close()
			return nil, nil, err
		}
		return z, &z.Reader, nil
	case methodImplode:
		z := implodePool.Get()
		if err := z.ResetAt(hdr, r, int64(f.usize), f.flags&flagImplode8K != 0, f.flags&flagImplodeLit != 0, cp.State, cp.Out, cp.In); err != nil {
			z.Close()
			return nil, nil, err
		}
		return z, &z.Reader, nil
	}
	z := reducePool.Get()
	if err := z.ResetAt(hdr, r, int64(f.usize), int(f.method)-1, cp.State, cp.Out, cp.In); err != nil {
		z.Close()
		return nil, nil, err
	}
	return z, &z.Reader, nil
}
