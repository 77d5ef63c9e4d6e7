package tar

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// gzip (RFC 1952) over package deflate, members concatenated (gzip.go).
// Checkpoints between Deflate blocks or at member starts ("tar-gzip").

var gzipPool = pool.Of[gzipStream]{}

func init() {
	register(&compressor{
		kind:        kindGzip,
		name:        "gzip",
		ext:         "gz",
		suffixes:    [][2]string{{".tgz", ".tar"}, {".taz", ".tar"}, {".gz", ""}, {".z", ""}, {"-gz", ""}},
		sniff:       func(b []byte) bool { return len(b) >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 },
		check:       func([]byte) string { return "gzip CRC32" },
		open:        openGzip,
		aheadWindow: func(*engine.Limits) int64 { return 64 << 10 },
		cpKind:      cpGzip,
		cpInBits:    true,
		stream: func(_ *Archive, cp *engine.Checkpoint, in *countReader, at int64) (cpStream, error) {
			g := new(gzipStream)
			return g, g.resetAt(in, at, cp)
		},
		cpStateMax: func(*engine.Limits) int64 { return gzipCPHead + 2 + 64<<10 },
	})
}

func openGzip(d *decomp, src io.Reader, _ int64, _ *engine.Limits, _ int, _ uint64) (decoder, error) {
	g := gzipPool.Get()
	err := g.reset(src)
	if err == nil {
		d.name, d.mod = g.name, g.mod
	}
	return g, err
}

func (g *gzipStream) release() {
	g.Close()
	gzipPool.Put(g)
}

// restore resumes the stream from checkpoint cp; br holds the input
// from byte cp.In/8.
func (g *gzipStream) restore(cp *engine.Checkpoint) error {
	st := cp.State
	if len(st) < gzipCPHead || st[0] != cpVersion {
		return errs.Corrupt("gzip: checkpoint does not fit the stream")
	}
	g.crc = binary.LittleEndian.Uint32(st[1:])
	g.size = int64(binary.LittleEndian.Uint64(st[5:]))
	if g.size < 0 || g.size > cp.Out {
		return errs.Corrupt("gzip: checkpoint does not fit the stream")
	}
	g.outBase = cp.Out - g.size
	return g.z.ResetAt(g.br, st[gzipCPHead:], g.size, cp.In)
}

func (g *gzipStream) CanCheckpoint() bool { return g.err == nil && g.z.CanCheckpoint() }
func (g *gzipStream) CheckpointSize() int { return gzipCPHead + g.z.CheckpointSize() }
func (g *gzipStream) Total() int64        { return g.outBase + g.size }

func (g *gzipStream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	dst = append(dst, cpVersion)
	dst = binary.LittleEndian.AppendUint32(dst, g.crc)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(g.size))
	dst, _, in := g.z.Checkpoint(dst)
	return dst, g.Total(), g.inBase + in
}

func (g *gzipStream) PauseAt(out int64) {
	g.pause = out
	if rel := out - g.outBase; rel > 0 {
		g.z.PauseAt(rel)
	}
}
