package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/ppmd"
)

// PPMd (APPNOTE 5.10, method 98): PPMd var.I rev.1 behind a 2-byte header
// giving the model order, its memory (1..256 MiB) and the restoration
// method. The model size is in the stream, so open checks it against
// MaxMemory after reading those 2 bytes and before allocating.
const methodPPMd = 98

// ppmdMinMemory is the smallest model a stream can declare (1 MiB).
const ppmdMinMemory = 1 << 20

var ppmdPool = pool.Of[ppmdReader]{}

// ppmdReader is a pooled decoder; Close returns its model and itself.
type ppmdReader struct {
	z ppmd.ReaderZip
}

func init() {
	register(methodPPMd, &methodSpec{
		name:  "PPMd",
		check: memCheck("PPMd", ppmdMinMemory+ppmd.Overhead(ppmdMinMemory)), // the smallest model a stream can declare
		open:  openPPMd,
		bufIn: true,
		// Checkpoints wherever the decoder has handed out all it decoded
		// (kind "ppmd8", In in bytes): the range decoder and the model.
		cpKind: "ppmd8",
		firstPass: func(c *chain) cpDecoder {
			if c.oth == nil {
				return nil
			}
			if d, ok := c.oth.rc.(*ppmdReader); ok {
				return &d.z
			}
			return nil
		},
		resume:    resumePPMd,
		stateFits: func(_ *file, st []byte) bool { return ppmd.ZipStateFits(st) }, // the decoder checks the model against the entry's header
	})
}

// resumePPMd restarts a PPMd entry: the model's order, memory and
// restoration method are the stream's 2-byte header, which the state
// must agree with.
func resumePPMd(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error) {
	hr, err := x.header()
	if err != nil {
		return nil, nil, false, err
	}
	var h [2]byte
	if _, err := io.ReadFull(hr, h[:]); err != nil {
		return nil, nil, false, errs.EOF(err, "PPMd header")
	}
	p := ppmdPool.Get()
	if err := p.z.ResetAt(x.r, uint16(h[0])|uint16(h[1])<<8, int64(x.f.usize), x.a.cfg.Bounds.MaxMemory, x.cp.State, x.cp.Out, x.cp.In); err != nil {
		p.Close()
		return nil, nil, false, mapMethodErr(err)
	}
	return ppmdResumed{p, p.z.Guarded()}, &p.z, true, nil
}

func openPPMd(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
	size := int64(f.usize)
	if f.Size < 0 {
		size = -1 // a data descriptor holds it: decode to the end marker
	}
	p := ppmdPool.Get()
	if err := p.z.Reset(r, size, cfg.Bounds.MaxMemory); err != nil {
		p.z.Close()
		ppmdPool.Put(p)
		return nil, err
	}
	return p, nil
}

func (p *ppmdReader) Read(b []byte) (int, error) { return p.z.Read(b) }

func (p *ppmdReader) Close() error {
	p.z.Close()
	ppmdPool.Put(p)
	return nil
}
