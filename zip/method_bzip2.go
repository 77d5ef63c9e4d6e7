package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/pool"
)

// BZip2 (APPNOTE 4.4.5: method 12) comes from our bzip2 package, its
// blocks decoded on up to cfg.Workers goroutines. Checkpoints between
// blocks when it decodes serially (kind "bzip2", In in bits).
const methodBZip2 = 12

// The bzip2 decoder keeps up to 900,000 uint32s for the block being
// inverted plus its tables; the reader itself checks the level the
// stream declares (and the memory of its workers) against MaxMemory.
const memBZip2 = 900000*4 + 64<<10

// bzip2Readers keeps decoders between entries; Close gives one back.
var bzip2Readers pool.Of[bzip2.Reader]

type bzip2Entry struct{ *bzip2.Reader }

func (b bzip2Entry) Close() error {
	err := b.Reader.Close()
	bzip2Readers.Put(b.Reader)
	return err
}

func openBZip2(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
	return openBZip2Shared(r, f, cfg, nil)
}

// openBZip2Shared decodes up to cfg.Workers blocks at once, the extra
// goroutines each holding a token of wp (nil: the reader's own).
func openBZip2Shared(r io.Reader, f *file, cfg *arc.Config, wp *engine.WorkerPool) (io.ReadCloser, error) {
	z := bzip2Readers.Get()
	opts := [3]bzip2.Option{bzip2.MaxMemory(cfg.Bounds.MaxMemory), bzip2.Workers(cfg.Workers), bzip2.Shared(nil)}
	if wp != nil {
		opts[2] = bzip2.Shared(wp)
	}
	if err := z.Reset(r, opts[:]...); err != nil {
		bzip2Readers.Put(z)
		return nil, err
	}
	return bzip2Entry{z}, nil
}

func init() {
	register(methodBZip2, &methodSpec{
		name:       "BZip2",
		check:      memCheck("BZip2", memBZip2),
		open:       openBZip2,
		openShared: openBZip2Shared,
		workers:    true,
		cpKind:     "bzip2",
		cpInBits:   true,
		firstPass: func(c *chain) cpDecoder {
			if c.oth == nil {
				return nil
			}
			if d, ok := c.oth.rc.(bzip2Entry); ok {
				d.Serial()
				return d.Reader
			}
			return nil
		},
		resume: func(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error) {
			z := bzip2Readers.Get()
			if err := z.ResetAt(x.r, x.cp.State, x.cp.Out, x.cp.In, bzip2.MaxMemory(x.a.cfg.Bounds.MaxMemory)); err != nil {
				bzip2Entry{z}.Close()
				return nil, nil, false, mapMethodErr(err)
			}
			return bzip2Entry{z}, z, true, nil
		},
		stateFits: func(_ *file, st []byte) bool { return len(st) == bzip2.CheckpointStateSize },
	})
}
