package rar

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack20"
)

// The RAR 2.0 family (unpack20): versions 20 and 26 (RAR 2.x), LZ and
// multimedia (audio) blocks.

var idle20 = pool.Of[unpack20.Decoder]{New: unpack20.NewDecoder}

type dec20 struct{ *unpack20.Decoder }

func new20(int64) unpacker { return dec20{idle20.Get()} }

func (d dec20) reset(src io.Reader, _ int, dict, size int64, solid bool) error {
	return d.Reset(src, dict, size, solid)
}

func (d dec20) resetAt(src io.Reader, _ int, dict, size int64, state []byte) error {
	return d.ResetAt(src, dict, size, state)
}

func (d dec20) onCheckpoint(next int64, fn func(cpState) int64) {
	d.OnCheckpoint(next, func(x *unpack20.Decoder) int64 { return fn(x) })
}

func (d dec20) release()        { d.Close(); idle20.Put(d.Decoder) }
func (d dec20) family() *family { return familyOf(20) }
func (d dec20) setWorkers(int)  {}

// cpStateMax20: the cipher state an encrypted entry's checkpoints start
// with, the adaptive tables and the history (at most the window of the
// largest dictionary in the solid run so far, and at most the run's
// output so far).
func cpStateMax20(f *file, runDict, produced int64, _ []byte, _ int64) int64 {
	return int64(oldCipher(f)) + unpack20.CheckpointOverhead + min(unpack20.WindowFor(runDict), produced)
}
