package sevenzip

import (
	"errors"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// LZ4, as 7-Zip-zstd and NanaZip store it: LZ4 frames (the standard
// frame format; one or more, skippable frames allowed, which the zstdmt
// library of 7-Zip-zstd puts before each frame it writes on several
// threads), decoded by pierrec/lz4 on the caller's goroutine.
// Properties as ZSTD's (3 or 5 bytes, the level third). No checkpoints.

const mLZ4 = 0x04F71104

// lz4Mem is the decoder's two block buffers (decoded and compressed) at
// the largest block a frame may declare: 4 MiB, 8 MiB in the legacy
// frame format, which the decoder also reads.
const lz4Mem = 2*(8<<20) + 64<<10

var lz4Readers = pool.Of[lz4Reader]{}

func init() {
	register(&method{
		ids:   []uint64{mLZ4},
		name:  "LZ4",
		label: levelLabel("LZ4"),
		mem:   lz4Mem,
		open:  openLZ4,
	})
}

// lz4Reader is a pooled decoder; it maps the decoder's errors.
type lz4Reader struct {
	z   *lz4.Reader
	err error
}

func openLZ4(c *coder, in []io.Reader, _ int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
	if err := checkZstdProps("LZ4", c); err != nil {
		return nil, err
	}
	r := lz4Readers.Get()
	if r.z == nil {
		r.z = lz4.NewReader(in[0])
	} else {
		r.z.Reset(in[0])
	}
	env.onClose(r)
	return r, nil
}

func (r *lz4Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.z.Read(p)
	if err != nil && err != io.EOF {
		r.err = lz4Err(err)
		err = r.err
	}
	return n, err
}

// lz4Err maps the decoder's errors to the sentinels.
func lz4Err(err error) error {
	switch {
	case errors.Is(err, lz4.ErrInvalidBlockChecksum), errors.Is(err, lz4.ErrInvalidFrameChecksum), errors.Is(err, lz4.ErrInvalidHeaderChecksum):
		return fmt.Errorf("%w: 7z: LZ4: %v", errs.ErrChecksum, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errs.Truncated("7z: LZ4 stream")
	case errors.Is(err, errs.ErrCorrupt), errors.Is(err, errs.ErrTruncated), errors.Is(err, errs.ErrPassword):
		return err // the input's own error (a pack reader, 7zAES)
	}
	return errs.Corrupt("7z: LZ4: %v", err)
}

// Close keeps the decoder (its block buffers go back to the library's
// pools at the frame's end) for the next LZ4 coder.
func (r *lz4Reader) Close() error {
	if r.z != nil {
		r.z.Reset(nil)
	}
	r.err = nil
	lz4Readers.Put(r)
	return nil
}
