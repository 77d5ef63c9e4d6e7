package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/engine"
)

// BZip2 (package bzip2), its blocks decoded on env.workers goroutines.
// Checkpoints between blocks when it decodes serially (kind "bzip2":
// the bit offset of the next block's magic, the block size level and
// the combined stream CRC).

const mBZip2 = 0x040202

// bzip2Mem is the largest block's tables and the input buffer.
const bzip2Mem = 900_000*4 + 64<<10

func init() {
	register(&method{
		ids:      []uint64{mBZip2},
		name:     "BZip2",
		mem:      bzip2Mem,
		open:     openBZip2,
		cpKind:   "bzip2",
		cpInBits: true,
		resume:   resumeBZip2,
		fitState: func(_ *coder, _ int64, state []byte) error {
			if len(state) != bzip2.CheckpointStateSize {
				return engine.Stale("checkpoint state does not fit its folder")
			}
			return nil
		},
	})
}

func openBZip2(_ *coder, in []io.Reader, _ int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
	z, err := bzip2.NewReader(in[0], bzip2.MaxMemory(env.limits.MaxMemory), bzip2.Workers(env.workers))
	if err != nil {
		return nil, err
	}
	env.onClose(z)
	env.cpz = z // checkpoints between blocks when serial (seek.go)
	return z, nil
}

func resumeBZip2(fr *folderReader, _ *coder, in io.Reader, _ int64, state []byte, out, inOff int64) (io.Reader, cpDecoder, error) {
	z := new(bzip2.Reader)
	fr.env.onClose(z)
	if err := z.ResetAt(in, state, out, inOff, bzip2.MaxMemory(fr.env.limits.MaxMemory)); err != nil {
		return nil, nil, mapErr(fr.encrypt, err)
	}
	return z, z, nil
}
