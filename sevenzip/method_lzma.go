package sevenzip

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
)

// LZMA and LZMA2 (package lzma). Checkpoints: LZMA2 at chunk boundaries
// (kind "lzma2": the window and the probabilities), LZMA wherever the
// decoder has handed out all it decoded (kind "lzma": the window, the
// probabilities and the range coder).

const (
	mLZMA2 = 0x21
	mLZMA  = 0x030101
)

const (
	lzmaFixedMem = 8<<10 + 64<<10 // probabilities besides literals, input buffer

	// growWindowOver: an LZMA window larger than this is grown with the
	// output when its input cannot explain it (see lzmaMemory).
	growWindowOver = 256 << 10
)

func init() {
	for _, m := range []*method{
		{ids: []uint64{mLZMA}, name: "LZMA", label: lzmaLabel, cpKind: "lzma"},
		{ids: []uint64{mLZMA2}, name: "LZMA2", label: lzmaLabel, cpKind: "lzma2"},
	} {
		m.memory = lzmaMemory
		m.open = func(c *coder, in []io.Reader, size int64, plan coderPlan, env *decodeEnv) (io.Reader, error) {
			return newLZMA(c, in[0], size, plan.grow, env)
		}
		m.resume = resumeLZMA
		m.fitState = fitLZMA
		register(m)
	}
}

func lzmaLabel(c *coder) string {
	if c.method == mLZMA2 {
		if len(c.props) == 1 {
			return "LZMA2:" + dictName(lzma2Dict(c.props[0]))
		}
		return "LZMA2"
	}
	if len(c.props) == 5 {
		return "LZMA:" + dictName(binary.LittleEndian.Uint32(c.props[1:]))
	}
	return "LZMA"
}

// lzmaMemory is an LZMA or LZMA2 coder's window (min(dictionary,
// output), refused above MaxDictionary), literal probabilities and
// fixed part; the window grows with the output when it is large and
// the input cannot explain it.
func lzmaMemory(a *Archive, si *streamsInfo, f *folder, inBase, outBase []int, ci int) (int64, bool, error) {
	c := &f.coders[ci]
	dict, lit, ok := lzmaShape(c)
	if !ok {
		return -1, false, nil // newLZMA reports the bad properties
	}
	w := min(max(dict, 4096), f.unpackSizes[outBase[ci]])
	if w > a.cfg.Bounds.MaxDictionary {
		return 0, false, errs.Limit("7z: LZMA window of %d bytes, above MaxDictionary (%d)", w, a.cfg.Bounds.MaxDictionary)
	}
	in := a.inputBound(si, f, inBase, outBase, ci, 0)
	return w + lit + lzmaFixedMem, w > growWindowOver && (in < 0 || w > 4*in), nil
}

// newLZMA builds an LZMA or LZMA2 decoder (package lzma). The window is
// bounded by Limits.MaxDictionary before anything is allocated; the
// decoder itself sizes it to min(dictionary, output size).
func newLZMA(c *coder, in io.Reader, size int64, grow bool, env *decodeEnv) (io.Reader, error) {
	maxDict := lzma.MaxDict(env.limits.MaxDictionary)
	growOpt, stepOpt := lzma.Option{}, lzma.Option{} // no effect
	if grow {
		growOpt = lzma.GrowWindow()
	}
	if env.step > 0 {
		stepOpt = lzma.StepSize(env.step)
	}
	if c.method == mLZMA2 {
		dict, err := lzma2DictOf(c)
		if err != nil {
			return nil, err
		}
		if env.workers > 1 {
			// Blocks that reset the dictionary (7-Zip -mmt, our block
			// mode) decode on several goroutines, as many as fit in
			// MaxMemory; other streams go to one Reader2 inside it.
			if n := lzma.MTWorkers(dict, env.workers, env.limits.MaxMemory); n > 1 {
				z, err := lzma.NewReader2MT(in, dict, size, n, maxDict, growOpt)
				if err != nil {
					return nil, err
				}
				env.onClose(z)
				return z, nil
			}
		}
		z := readers2.Get()
		if err := z.Reset(in, dict, size, maxDict, growOpt, stepOpt); err != nil {
			reader2Closer{z}.Close()
			return nil, err
		}
		env.onClose(reader2Closer{z})
		env.cpz = z
		return z, nil
	}
	p, err := lzma.DecodeProps(c.props)
	if err != nil {
		return nil, err
	}
	z := readers1.Get()
	if err := z.Reset(in, p, size, maxDict, growOpt, stepOpt); err != nil {
		reader1Closer{z}.Close()
		return nil, err
	}
	env.onClose(reader1Closer{z})
	env.cpz = z
	return z, nil
}

// lzma2DictOf is LZMA2 coder c's dictionary size.
func lzma2DictOf(c *coder) (int64, error) {
	if len(c.props) != 1 {
		return 0, errs.Corrupt("7z: LZMA2 with %d property bytes", len(c.props))
	}
	return lzma.DictSizeLZMA2(c.props[0])
}

// The decoder values are pooled; their windows and input buffers go
// back to internal/pool on Close, whose list of large buffers survives
// garbage collection and is what unarc.ReleaseMemory frees. A decoder
// is closed (and its window released) only by its folder reader, which
// belongs to one entry reader at a time.
var (
	readers1 = pool.Of[lzma.Reader]{}
	readers2 = pool.Of[lzma.Reader2]{}
)

type reader1Closer struct{ z *lzma.Reader }

func (c reader1Closer) Close() error {
	err := c.z.Close()
	readers1.Put(c.z)
	return err
}

type reader2Closer struct{ z *lzma.Reader2 }

func (c reader2Closer) Close() error {
	err := c.z.Close()
	readers2.Put(c.z)
	return err
}

// litCoderMem is the memory of one LZMA literal coder: 0x300
// probabilities of two bytes and the decoder's stamp of its last reset.
const litCoderMem = 0x300*2 + 4

// lzmaShape returns an LZMA or LZMA2 coder's dictionary size and the
// bytes of its literal probabilities.
func lzmaShape(c *coder) (dict, lit int64, ok bool) {
	if c.method == mLZMA2 {
		if len(c.props) != 1 {
			return 0, 0, false
		}
		d, err := lzma.DictSizeLZMA2(c.props[0])
		if err != nil {
			return 0, 0, false
		}
		return d, litCoderMem << 4, true
	}
	p, err := lzma.DecodeProps(c.props)
	if err != nil {
		return 0, 0, false
	}
	return int64(p.DictSize), litCoderMem << uint(p.LC+p.LP), true
}

// lzmaStateBound is the largest checkpoint state of LZMA or LZMA2 coder
// c producing size bytes: the window (at most the dictionary, or size
// when smaller), a few coder fields and the probabilities.
func lzmaStateBound(c *coder, size int64) (int64, bool) {
	var dict int64
	lclp := 4
	switch c.method {
	case mLZMA2:
		if len(c.props) != 1 {
			return 0, false
		}
		d, err := lzma.DictSizeLZMA2(c.props[0])
		if err != nil {
			return 0, false
		}
		dict = d
	default:
		p, err := lzma.DecodeProps(c.props)
		if err != nil {
			return 0, false
		}
		dict, lclp = int64(p.DictSize), p.LC+p.LP
	}
	window := (min(max(dict, 4096), size) + 15) &^ 15
	return window + 2*(4096+0x300<<lclp) + 128, true
}

// lzmaReader is an LZMA or LZMA2 decoder (checkpoints: cpDecoder).
type lzmaReader interface {
	io.Reader
	cpDecoder
}

// lzmaAt makes an LZMA or LZMA2 decoder of coder c over in (its output
// size bytes) at a checkpoint's state, output and input offsets, or,
// fresh, at the stream's start; fr closes it.
func (fr *folderReader) lzmaAt(c *coder, in io.Reader, size int64, fresh bool, state []byte, out, inOff int64, opts ...lzma.Option) (lzmaReader, error) {
	if c.method == mLZMA2 {
		dict, err := lzma2DictOf(c)
		if err != nil {
			return nil, err
		}
		z := readers2.Get()
		fr.env.onClose(reader2Closer{z})
		if fresh {
			return z, z.Reset(in, dict, size, opts...)
		}
		return z, z.ResetAt(in, dict, size, state, out, inOff, opts...)
	}
	p, err := lzma.DecodeProps(c.props)
	if err != nil {
		return nil, err
	}
	z := readers1.Get()
	fr.env.onClose(reader1Closer{z})
	if fresh {
		return z, z.Reset(in, p, size, opts...)
	}
	return z, z.ResetAt(in, p, size, state, out, inOff, opts...)
}

func resumeLZMA(fr *folderReader, c *coder, in io.Reader, size int64, state []byte, out, inOff int64) (io.Reader, cpDecoder, error) {
	z, err := fr.lzmaAt(c, in, size, false, state, out, inOff, lzma.MaxDict(fr.env.limits.MaxDictionary))
	if err != nil {
		return nil, nil, err
	}
	return z, z, nil
}

// fitLZMA bounds a restored LZMA or LZMA2 state by the coder's window.
func fitLZMA(c *coder, size int64, state []byte) error {
	bound, ok := lzmaStateBound(c, size)
	if !ok {
		return engine.Stale("checkpoint of a damaged coder")
	}
	if int64(len(state)) > bound {
		return engine.Stale("checkpoint state larger than its folder's window")
	}
	return nil
}
