package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/bcj"
)

// BCJ2: x86 branch conversion over four inputs (main, call, jump, range
// coder). Its checkpoints (kind "bcj2") hold the states of the coders
// under it too, so seek_bcj2.go resumes the whole folder.

const mBCJ2 = 0x0303011B

// bcj2Mem is its four bufio readers.
const bcj2Mem = 48 << 10

func init() {
	register(&method{
		ids:    []uint64{mBCJ2},
		name:   "BCJ2",
		role:   roleBCJ2,
		inputs: 4,
		mem:    bcj2Mem,
		open: func(_ *coder, in []io.Reader, size int64, _ coderPlan, _ *decodeEnv) (io.Reader, error) {
			return bcj.NewBCJ2(in[0], in[1], in[2], in[3], size), nil
		},
		cpKind: "bcj2",
	})
}
