package tar

import (
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/xz"
)

// xz (package xz), streams concatenated and padded, blocks that declare
// their sizes (xz -T) decoded on Workers goroutines; checkpoints between
// LZMA2 chunks when it decodes serially ("xz").

var xzPool = pool.Of[xz.Reader]{}

func init() {
	register(&compressor{
		kind:     kindXZ,
		name:     "xz",
		ext:      "xz",
		suffixes: [][2]string{{".txz", ".tar"}, {".xz", ""}},
		sniff:    func(b []byte) bool { return len(b) >= 6 && string(b[:6]) == "\xfd7zXZ\x00" },
		check:    xzCheck,
		open: func(_ *decomp, src io.Reader, _ int64, lim *engine.Limits, workers int, _ uint64) (decoder, error) {
			z := xzPool.Get()
			return xzDecoder{z}, z.Reset(src, xz.MaxMemory(lim.MaxMemory), xz.MaxDict(lim.MaxDictionary), xz.Workers(workers))
		},
		aheadWindow: lzmaWindow,
		cpKind:      cpXZ,
		stream: func(a *Archive, cp *engine.Checkpoint, in *countReader, _ int64) (cpStream, error) {
			x := &xzStream{z: xzPool.Get()}
			return x, x.start(a, cp, in)
		},
		cpStateMax: lzmaStateMax,
	})
}

// xzCheck is the first stream's check, from its header's flags (the
// tools write every stream alike).
func xzCheck(head []byte) string {
	if len(head) >= 8 {
		switch head[7] & 0x0f {
		case 0x01:
			return "xz CRC32"
		case 0x04:
			return "xz CRC64"
		case 0x0a:
			return "xz SHA-256"
		}
	}
	return ""
}

// xzDecoder is a pooled xz.Reader.
type xzDecoder struct{ z *xz.Reader }

func (x xzDecoder) Read(p []byte) (int, error) { return x.z.Read(p) }

func (x xzDecoder) release() {
	x.z.Close()
	xzPool.Put(x.z)
}

// xzStream is a serial xz.Reader over the whole file (its concatenated
// streams too); its checkpoints count from the file's start.
type xzStream struct{ z *xz.Reader }

func (x *xzStream) start(a *Archive, cp *engine.Checkpoint, in io.Reader) error {
	opts := []xz.Option{xz.MaxMemory(a.lim.MaxMemory), xz.MaxDict(a.lim.MaxDictionary)}
	if cp == nil {
		return x.z.Reset(in, opts...)
	}
	return x.z.ResetAt(in, cp.State, cp.Out, cp.In, opts...)
}

func (x *xzStream) Read(p []byte) (int, error) { return x.z.Read(p) }
func (x *xzStream) CanCheckpoint() bool        { return x.z.CanCheckpoint() }
func (x *xzStream) CheckpointSize() int        { return x.z.CheckpointSize() }
func (x *xzStream) Total() int64               { return x.z.Total() }
func (x *xzStream) PauseAt(int64)              {}
func (x *xzStream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	return x.z.Checkpoint(dst)
}

func (x *xzStream) Close() {
	if x.z != nil {
		x.z.Close()
		xzPool.Put(x.z)
		x.z = nil
	}
}
