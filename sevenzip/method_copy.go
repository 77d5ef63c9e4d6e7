package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Copy: stored bytes. Under a filter it takes the chain's checkpoints
// (kind "copy+<filter>"), resuming at its input offset (copyCounter).

const mCopy = 0x00

func init() {
	register(&method{
		ids:    []uint64{mCopy},
		name:   "Copy",
		role:   roleCopy,
		open:   openCopy,
		cpKind: "copy",
		resume: resumeCopy,
		fitState: func(_ *coder, _ int64, state []byte) error {
			if len(state) != 0 {
				return engine.Stale("checkpoint state does not fit its folder")
			}
			return nil
		},
	})
}

func openCopy(_ *coder, in []io.Reader, _ int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
	cc := env.counter(in[0], 0)
	if env.cpz == nil { // a chain's LZMA-family coder above it comes later
		env.cpz = cc // Copy under a filter resumes at its input offset (seek.go)
	}
	return cc, nil
}

func resumeCopy(fr *folderReader, _ *coder, in io.Reader, _ int64, state []byte, out, inOff int64) (io.Reader, cpDecoder, error) {
	if len(state) != 0 || inOff != out {
		return nil, nil, errs.Corrupt("7z: Copy checkpoint at output %d, input %d", out, inOff)
	}
	cc := fr.env.counter(in, out)
	return cc, cc, nil
}
