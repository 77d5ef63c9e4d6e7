package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
	"github.com/go-unarc/unarc/lzma"
)

// newLZMA builds an LZMA or LZMA2 decoder (package lzma). The window is
// bounded by Limits.MaxDictionary before anything is allocated; the
// decoder itself sizes it to min(dictionary, output size).
func newLZMA(c *coder, in io.Reader, size int64, env *decodeEnv) (io.Reader, error) {
	maxDict := lzma.MaxDict(env.limits.MaxDictionary)
	if c.method == mLZMA2 {
		if len(c.props) != 1 {
			return nil, errs.Corrupt("7z: LZMA2 with %d property bytes", len(c.props))
		}
		dict, err := lzma.DictSizeLZMA2(c.props[0])
		if err != nil {
			return nil, err
		}
		z, err := lzma.NewReader2(in, dict, size, maxDict)
		if err != nil {
			return nil, err
		}
		env.onClose(z)
		return z, nil
	}
	p, err := lzma.DecodeProps(c.props)
	if err != nil {
		return nil, err
	}
	z, err := lzma.NewReader(in, p, size, maxDict)
	if err != nil {
		return nil, err
	}
	env.onClose(z)
	return z, nil
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
