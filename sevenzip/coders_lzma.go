package sevenzip

import (
	"io"
	"sync"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
	"github.com/go-unarc/unarc/lzma"
)

// newLZMA builds an LZMA or LZMA2 decoder (package lzma). The window is
// bounded by Limits.MaxDictionary before anything is allocated; the
// decoder itself sizes it to min(dictionary, output size).
func newLZMA(c *coder, in io.Reader, size int64, grow bool, env *decodeEnv) (io.Reader, error) {
	maxDict := lzma.MaxDict(env.limits.MaxDictionary)
	growOpt := lzma.Option{} // no effect
	if grow {
		growOpt = lzma.GrowWindow()
	}
	if c.method == mLZMA2 {
		if len(c.props) != 1 {
			return nil, errs.Corrupt("7z: LZMA2 with %d property bytes", len(c.props))
		}
		dict, err := lzma.DictSizeLZMA2(c.props[0])
		if err != nil {
			return nil, err
		}
		z := idle.get2()
		if z == nil {
			z = new(lzma.Reader2)
		}
		if err := z.Reset(in, dict, size, maxDict, growOpt); err != nil {
			z.Close()
			return nil, err
		}
		env.onClose(reader2Closer{z, keepWindow(int64(dict), size)})
		return z, nil
	}
	p, err := lzma.DecodeProps(c.props)
	if err != nil {
		return nil, err
	}
	z := idle.get1()
	if z == nil {
		z = new(lzma.Reader)
	}
	if err := z.Reset(in, p, size, maxDict, growOpt); err != nil {
		z.Close()
		return nil, err
	}
	env.onClose(reader1Closer{z, keepWindow(int64(p.DictSize), size)})
	return z, nil
}

// idle keeps a few LZMA decoders, with their windows, between folders and
// between archives. internal/pool's sync.Pool classes are emptied by
// every garbage collection, which would make the next extraction
// allocate its multi-MiB window again; this short list is not.
var idle decoderList

// Bounds on what the idle list holds.
const (
	maxIdleDecoders = 2
	maxIdleWindow   = 64 << 20
)

type decoderList struct {
	mu sync.Mutex
	r1 []*lzma.Reader
	r2 []*lzma.Reader2
}

func (l *decoderList) get1() *lzma.Reader {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.r1); n > 0 {
		z := l.r1[n-1]
		l.r1 = l.r1[:n-1]
		return z
	}
	return nil
}

func (l *decoderList) get2() *lzma.Reader2 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.r2); n > 0 {
		z := l.r2[n-1]
		l.r2 = l.r2[:n-1]
		return z
	}
	return nil
}

// keepWindow says whether a decoder's window (the smaller of dictionary
// and output size) is small enough to keep idle.
func keepWindow(dict, size int64) bool {
	w := dict
	if size >= 0 && size < w {
		w = size
	}
	return w <= maxIdleWindow
}

type reader1Closer struct {
	z    *lzma.Reader
	keep bool
}

func (c reader1Closer) Close() error {
	if c.keep {
		idle.mu.Lock()
		if len(idle.r1) < maxIdleDecoders {
			idle.r1 = append(idle.r1, c.z)
			idle.mu.Unlock()
			return nil
		}
		idle.mu.Unlock()
	}
	return c.z.Close()
}

type reader2Closer struct {
	z    *lzma.Reader2
	keep bool
}

func (c reader2Closer) Close() error {
	if c.keep {
		idle.mu.Lock()
		if len(idle.r2) < maxIdleDecoders {
			idle.r2 = append(idle.r2, c.z)
			idle.mu.Unlock()
			return nil
		}
		idle.mu.Unlock()
	}
	return c.z.Close()
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
	return z, nil
}
