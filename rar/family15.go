package rar

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack15"
)

// The RAR 1.5 family (unpack15): versions 13 to 15 (RAR 1.3 to 1.5).

var idle15 = pool.Of[unpack15.Decoder]{New: unpack15.NewDecoder}

type dec15 struct{ *unpack15.Decoder }

func new15(int64) unpacker { return dec15{idle15.Get()} }

func (d dec15) reset(src io.Reader, _ int, dict, size int64, solid bool) error {
	return d.Reset(src, dict, size, solid)
}

func (d dec15) resetAt(src io.Reader, _ int, dict, size int64, state []byte) error {
	return d.ResetAt(src, dict, size, state)
}

func (d dec15) onCheckpoint(next int64, fn func(cpState) int64) {
	d.OnCheckpoint(next, func(x *unpack15.Decoder) int64 { return fn(x) })
}

func (d dec15) release()        { d.Close(); idle15.Put(d.Decoder) }
func (d dec15) family() *family { return familyOf(15) }
func (d dec15) setWorkers(int)  {}

// cpStateMax15: the cipher state an encrypted entry's checkpoints start
// with, the adaptive tables and the history (at most the window of the
// largest dictionary in the solid run so far, and at most the run's
// output so far).
func cpStateMax15(f *file, runDict, produced int64, _ []byte, _ int64) int64 {
	return int64(oldCipher(f)) + unpack15.CheckpointOverhead + min(unpack15.WindowFor(runDict), produced)
}
