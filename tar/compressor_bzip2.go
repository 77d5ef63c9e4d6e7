package tar

import (
	"io"

	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/pool"
)

// bzip2 (package bzip2), its blocks decoded on Workers goroutines;
// checkpoints between blocks when it decodes serially ("bzip2").

var bzip2Pool = pool.Of[bzip2.Reader]{}

func init() {
	register(&compressor{
		kind:     kindBzip2,
		name:     "bzip2",
		ext:      "bz2",
		suffixes: [][2]string{{".tbz2", ".tar"}, {".tbz", ".tar"}, {".bz2", ""}, {".bz", ""}},
		sniff: func(b []byte) bool {
			return len(b) >= 4 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' && b[3] <= '9'
		},
		check:    func([]byte) string { return "bzip2 CRC32" },
		open:     openBzip2,
		cpKind:   cpBzip2,
		cpInBits: true,
		stream: func(a *Archive, cp *engine.Checkpoint, in *countReader, _ int64) (cpStream, error) {
			b := &bzip2Stream{z: bzip2Pool.Get()}
			return b, b.start(cp, in, a.lim.MaxMemory)
		},
		cpStateMax: func(*engine.Limits) int64 { return bzip2.CheckpointStateSize },
	})
}

// bzip2Decoder is a pooled bzip2.Reader (a value: one pointer, no
// allocation as an interface).
type bzip2Decoder struct{ z *bzip2.Reader }

func openBzip2(_ *decomp, src io.Reader, _ int64, lim *engine.Limits, workers int, _ uint64) (decoder, error) {
	z := bzip2Pool.Get()
	return bzip2Decoder{z}, z.Reset(src, bzip2.MaxMemory(lim.MaxMemory), bzip2.Workers(workers))
}

func (b bzip2Decoder) Read(p []byte) (int, error) { return b.z.Read(p) }

func (b bzip2Decoder) release() {
	b.z.Close()
	bzip2Pool.Put(b.z)
}

// bzip2Stream is a serial bzip2.Reader over the whole stream (its
// concatenated bzip2 streams too); its checkpoints already count from
// the stream's start.
type bzip2Stream struct{ z *bzip2.Reader }

func (b *bzip2Stream) start(cp *engine.Checkpoint, in io.Reader, maxMem int64) error {
	if cp == nil {
		if err := b.z.Reset(in, bzip2.MaxMemory(maxMem)); err != nil {
			return err
		}
		b.z.Serial()
		return nil
	}
	return b.z.ResetAt(in, cp.State, cp.Out, cp.In, bzip2.MaxMemory(maxMem))
}

func (b *bzip2Stream) Read(p []byte) (int, error) { return b.z.Read(p) }
func (b *bzip2Stream) CanCheckpoint() bool        { return b.z.CanCheckpoint() }
func (b *bzip2Stream) CheckpointSize() int        { return b.z.CheckpointSize() }
func (b *bzip2Stream) Total() int64               { return b.z.Total() }
func (b *bzip2Stream) PauseAt(int64)              {}
func (b *bzip2Stream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	return b.z.Checkpoint(dst)
}

func (b *bzip2Stream) Close() {
	if b.z != nil {
		b.z.Close()
		bzip2Pool.Put(b.z)
		b.z = nil
	}
}
