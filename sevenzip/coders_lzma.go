package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// newLZMA builds an LZMA or LZMA2 decoder (package lzma).
func newLZMA(c *coder, in io.Reader, size int64, env *decodeEnv) (io.Reader, error) {
	return nil, errs.Unsupported("7z: %s (decoder not merged yet)", methodName(c))
}

// newPPMd builds a PPMd variant H decoder (package internal/ppmd).
func newPPMd(c *coder, in io.Reader, size int64, env *decodeEnv) (io.Reader, error) {
	return nil, errs.Unsupported("7z: %s (decoder not merged yet)", methodName(c))
}
