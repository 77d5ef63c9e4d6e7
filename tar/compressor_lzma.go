package tar

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/xz"
)

// .lzma (LZMA1 behind a 13-byte header, package lzma); checkpoints
// wherever the decoder has handed out all it decoded ("lzma").

var lzmaPool = pool.Of[lzma.Reader]{}

func init() {
	register(&compressor{
		kind:     kindLZMA,
		name:     "lzma",
		ext:      "lzma",
		suffixes: [][2]string{{".lzma", ""}},
		sniff:    isLZMAHeader, // no magic: last in compKind order
		open: func(_ *decomp, src io.Reader, _ int64, lim *engine.Limits, _ int, _ uint64) (decoder, error) {
			z := lzmaPool.Get()
			return lzmaDecoder{z}, z.ResetLZMAHeader(src, lzma.MaxDict(min(lim.MaxDictionary, lim.MaxMemory)))
		},
		aheadWindow: lzmaWindow,
		cpKind:      cpLZMA,
		stream: func(a *Archive, cp *engine.Checkpoint, in *countReader, _ int64) (cpStream, error) {
			l := &lzmaStream{z: lzmaPool.Get()}
			return l, l.start(a, cp, in)
		},
		cpStateMax: lzmaStateMax,
	})
}

// lzmaWindow is the most an LZMA-family window holds under lim: its
// streams announce their dictionary only block by block.
func lzmaWindow(lim *engine.Limits) int64 { return min(lim.MaxDictionary, lim.MaxMemory) }

// lzmaStateMax bounds an LZMA-family checkpoint state: the window, the
// probabilities and the container's fields.
func lzmaStateMax(lim *engine.Limits) int64 {
	return lzmaWindow(lim) + 2*(4096+0x300<<4) + 128 + lzipCPHead + xz.CheckpointOverhead
}

func isLZMAHeader(b []byte) bool {
	if len(b) < 14 || b[0] > 224 || b[13] != 0 {
		return false
	}
	d := binary.LittleEndian.Uint32(b[1:5])
	if d < 1<<12 {
		return false
	}
	for d&1 == 0 {
		d >>= 1
	}
	if d != 1 && d != 3 {
		return false
	}
	size := binary.LittleEndian.Uint64(b[5:13])
	return size == ^uint64(0) || size < 1<<48
}

// lzmaDecoder is a pooled lzma.Reader.
type lzmaDecoder struct{ z *lzma.Reader }

func (l lzmaDecoder) Read(p []byte) (int, error) { return l.z.Read(p) }

func (l lzmaDecoder) release() {
	l.z.Close()
	lzmaPool.Put(l.z)
}

// lzmaStream is a .lzma stream (LZMA1 behind its 13-byte header).
type lzmaStream struct{ z *lzma.Reader }

func (l *lzmaStream) start(a *Archive, cp *engine.Checkpoint, in io.Reader) error {
	opt := lzma.MaxDict(min(a.lim.MaxDictionary, a.lim.MaxMemory))
	if cp == nil {
		return l.z.ResetLZMAHeader(in, opt)
	}
	if cp.In < lzmaAloneLen {
		return errs.Corrupt("lzma: checkpoint does not fit the stream")
	}
	var h [lzmaAloneLen]byte
	if _, err := a.ra.ReadAt(h[:], 0); err != nil {
		return errs.EOF(err, "lzma header")
	}
	p, err := lzma.DecodeProps(h[:5])
	if err != nil {
		return err
	}
	size := int64(binary.LittleEndian.Uint64(h[5:]))
	if size < 0 {
		size = -1 // as ResetLZMAHeader: unknown
	}
	return l.z.ResetAt(in, p, size, cp.State, cp.Out, cp.In-lzmaAloneLen, opt)
}

func (l *lzmaStream) Read(p []byte) (int, error) { return l.z.Read(p) }
func (l *lzmaStream) CanCheckpoint() bool        { return l.z.CanCheckpoint() }
func (l *lzmaStream) CheckpointSize() int        { return l.z.CheckpointSize() }
func (l *lzmaStream) Total() int64               { return l.z.Total() }
func (l *lzmaStream) PauseAt(int64)              {}

func (l *lzmaStream) Checkpoint(dst []byte) ([]byte, int64, int64) {
	dst, out, in := l.z.Checkpoint(dst)
	return dst, out, in + lzmaAloneLen
}

func (l *lzmaStream) Close() {
	if l.z != nil {
		l.z.Close()
		lzmaPool.Put(l.z)
		l.z = nil
	}
}
