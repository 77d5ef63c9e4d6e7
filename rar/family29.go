package rar

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack29"
)

// The RAR 2.9 family (unpack29): RAR 3.x and 4.x, LZ with VM filters and
// PPMd blocks.

var idle29 = pool.Of[unpack29.Decoder]{New: unpack29.NewDecoder}

type dec29 struct{ *unpack29.Decoder }

func new29(maxMem int64) unpacker {
	d := idle29.Get()
	d.MaxMemory = maxMem // bounds the PPMd model a block may declare
	return dec29{d}
}

func (d dec29) reset(src io.Reader, _ int, dict, size int64, solid bool) error {
	return d.Reset(src, dict, size, solid)
}

func (d dec29) resetAt(src io.Reader, _ int, dict, size int64, state []byte) error {
	return d.ResetAt(src, dict, size, state)
}

func (d dec29) onCheckpoint(next int64, fn func(cpState) int64) {
	d.OnCheckpoint(next, func(x *unpack29.Decoder) int64 { return fn(x) })
}

func (d dec29) release()        { d.Close(); idle29.Put(d.Decoder) }
func (d dec29) family() *family { return familyOf(29) }
func (d dec29) setWorkers(int)  {}

// cpStateMax29: the history (at most the window of the largest
// dictionary in the solid run so far, and at most the run's output so
// far), the tables, the filter definitions and queued filters, and a
// PPMd model met earlier in the run: the part the state declares, at
// most the model the decoder would allocate (Limits.MaxMemory or 256 MiB).
func cpStateMax29(_ *file, runDict, produced int64, state []byte, memMax int64) int64 {
	return unpack29.CheckpointOverhead + min(unpack29.WindowFor(runDict), produced) +
		min(unpack29.PPMdLen(state), unpack29.PPMdMax(memMax))
}
