package sevenzip

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
)

// PPMd variant H with 7-Zip's range coder (internal/ppmd). Checkpoints
// wherever the decoder has handed out all it decoded (kind "ppmd7": the
// range decoder and the whole model), checked as a heap when restored.

const mPPMD = 0x030401

// ppmdFixedMem is the range coder's input buffer.
const ppmdFixedMem = 64 << 10

func init() {
	register(&method{
		ids:   []uint64{mPPMD},
		name:  "PPMD",
		label: ppmdLabel,
		memory: func(_ *Archive, _ *streamsInfo, f *folder, _, _ []int, ci int) (int64, bool, error) {
			c := &f.coders[ci]
			if len(c.props) != 5 {
				return 0, false, nil
			}
			mem := int64(binary.LittleEndian.Uint32(c.props[1:]))
			return mem + ppmd.Overhead(mem) + ppmdFixedMem, false, nil
		},
		open: func(c *coder, in []io.Reader, size int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
			return newPPMd(c, in[0], size, env)
		},
		cpKind:   "ppmd7",
		resume:   resumePPMd,
		fitState: fitPPMd,
	})
}

func ppmdLabel(c *coder) string {
	if len(c.props) == 5 {
		return "PPMD:o" + strconv.Itoa(int(c.props[0])) + ":mem" + dictName(binary.LittleEndian.Uint32(c.props[1:]))
	}
	return "PPMD"
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

func resumePPMd(fr *folderReader, c *coder, in io.Reader, size int64, state []byte, out, inOff int64) (io.Reader, cpDecoder, error) {
	order, mem, err := ppmd.ParseProps7z(c.props)
	if need := int64(mem) + ppmd.Overhead(int64(mem)); err == nil && need > fr.env.limits.MaxMemory {
		err = errs.Limit("7z: PPMd model of %d bytes (%d with its tables)", mem, need)
	}
	if err != nil {
		return nil, nil, err
	}
	z := new(ppmd.Reader7z)
	fr.env.onClose(z)
	if err := z.ResetAt7z(in, order, mem, size, state, out, inOff); err != nil {
		return nil, nil, mapErr(fr.encrypt, err)
	}
	return z.Guarded(), z, nil
}

// fitPPMd bounds a restored state by the model's arena and its tables.
func fitPPMd(c *coder, _ int64, state []byte) error {
	_, mem, err := ppmd.ParseProps7z(c.props)
	if err != nil {
		return engine.Stale("checkpoint of a damaged coder")
	}
	if int64(len(state)) > int64(mem)+ppmd.CheckpointOverhead {
		return engine.Stale("checkpoint state larger than its folder's model")
	}
	return nil
}
