package rar

import (
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack29"
)

// The RAR 2.9 family (unpack29): RAR 3.x and 4.x, LZ with VM filters and
// PPMd blocks, through the lz adapter.

var idle29 = pool.Of[unpack29.Decoder]{New: unpack29.NewDecoder}

type home29 struct{}

func (home29) home() (*pool.Of[unpack29.Decoder], int) { return &idle29, 29 }

func new29(maxMem int64) unpacker {
	d := idle29.Get()
	d.MaxMemory = maxMem // bounds the PPMd model a block may declare
	return lz[unpack29.Decoder, *unpack29.Decoder, home29]{d}
}

// cpStateMax29: the history (at most the window of the largest
// dictionary in the solid run so far, and at most the run's output so
// far), the tables, the filter definitions and queued filters, and a
// PPMd model met earlier in the run: the part the state declares, at
// most the model the decoder would allocate (Limits.MaxMemory or 256 MiB).
func cpStateMax29(_ *file, runDict, produced int64, state []byte, memMax int64) int64 {
	return unpack29.CheckpointOverhead + min(unpack29.WindowFor(runDict), produced) +
		min(unpack29.PPMdLen(state), unpack29.PPMdMax(memMax))
}
