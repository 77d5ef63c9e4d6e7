package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/ppmd"
)

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

// newPPMd builds a PPMd variant H decoder with 7-Zip's range coder
// (package internal/ppmd). The model arena is checked against
// Limits.MaxMemory before it is allocated.
func newPPMd(c *coder, in io.Reader, size int64, env *decodeEnv) (io.Reader, error) {
	order, mem, err := ppmd.ParseProps7z(c.props)
	if err != nil {
		return nil, err
	}
	if int64(mem) > env.limits.MaxMemory {
		return nil, errs.Limit("7z: PPMd model of %d bytes", mem)
	}
	z, err := ppmd.NewReader7z(in, order, mem, size)
	if err != nil {
		return nil, err
	}
	env.onClose(z)
	env.cpz = z // checkpoints between symbols (seek.go)
	return z, nil
}
