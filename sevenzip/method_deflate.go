package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/deflate"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Deflate and Deflate64 (package deflate). Checkpoints between blocks
// (kind "deflate": the last 32 or 64 KiB of output and the input bit
// offset, state[1] telling the variant); the decoder is paused at the
// first block boundary after each interval.

const (
	mDeflate   = 0x040108
	mDeflate64 = 0x040109
)

// deflateMem is four windows and the Huffman tables.
const deflateMem = 256 << 10

func init() {
	register(&method{
		ids:      []uint64{mDeflate, mDeflate64},
		name:     "Deflate",
		label:    deflateLabel,
		mem:      deflateMem,
		open:     openDeflate,
		cpKind:   "deflate",
		cpInBits: true,
		resume:   resumeDeflate,
		fitState: func(_ *coder, _ int64, state []byte) error {
			if len(state) < 2 || len(state) > 2+64<<10 {
				return engine.Stale("checkpoint state does not fit its folder")
			}
			return nil
		},
	})
}

func deflateLabel(c *coder) string {
	if c.method == mDeflate64 {
		return "Deflate64"
	}
	return "Deflate"
}

func openDeflate(c *coder, in []io.Reader, _ int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
	z := deflate.NewReader(in[0])
	if c.method == mDeflate64 {
		z.Reset(in[0], true)
	}
	env.onClose(z)
	env.cpz = z // checkpoints between blocks (seek.go)
	return z, nil
}

func resumeDeflate(fr *folderReader, c *coder, in io.Reader, _ int64, state []byte, out, inOff int64) (io.Reader, cpDecoder, error) {
	if len(state) < 2 || state[1] == 1 != (c.method == mDeflate64) {
		return nil, nil, errs.Corrupt("7z: Deflate checkpoint of the other variant")
	}
	z := new(deflate.Reader)
	fr.env.onClose(z)
	if err := z.ResetAt(in, state, out, inOff); err != nil {
		return nil, nil, mapErr(fr.encrypt, err)
	}
	return z, z, nil
}
