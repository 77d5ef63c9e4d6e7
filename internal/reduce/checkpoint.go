package reduce

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoints. Between two bytes of the probabilistic layer, with all
// output delivered, a Reduce decoder's state is the run layer's (the
// previous byte, which follower set comes next, the DLE state machine
// and a match's length so far), the last 256<<factor bytes of output
// (the longest distance back) and its input's bit offset; the follower
// sets are static, read again from the stream's start on resuming.
// PauseAt stops a Fill there.
//
// State layout: version (1), factor (1), previous byte (1), run state
// (1), the byte after DLE (1), match length (2, little-endian), the
// history (the window, or all the output when shorter).
const (
	cpVersion = 1
	cpHead    = 1 + 1 + 1 + 1 + 1 + 2 // the fields before the history, as listed
)

func (z *Reader) window() int { return 256 << z.factor }

// CheckpointSize is the size of the state Checkpoint appends now.
func (z *Reader) CheckpointSize() int { return cpHead + z.HistoryLen(z.window()) }

// Checkpoint appends z's state to dst (see CanCheckpoint) and returns it
// with its output offset and input offset in bits. ResetAt resumes from
// it.
func (z *Reader) Checkpoint(dst []byte) (state []byte, out, inBits int64) {
	dst = append(dst, cpVersion, byte(z.factor), z.last, z.state, z.v)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(z.length))
	return z.AppendHistory(dst, z.window()), int64(z.W), z.Br.Consumed()
}

// ResetAt makes z continue a stream from a checkpoint: hdr reads the
// stream from its start (for its follower sets), r from byte in/8 on;
// size and factor are as for Reset. A state that does not fit is
// ErrCorrupt.
func (z *Reader) ResetAt(hdr, r io.Reader, size int64, factor int, state []byte, out, in int64) error {
	z.Reset(hdr, size, factor)
	if z.Err == nil {
		z.Err = z.resetAt(r, state, out, in)
	}
	return z.Err
}

func (z *Reader) resetAt(r io.Reader, st []byte, out, in int64) error {
	fits := len(st) >= cpHead && st[0] == cpVersion && uint(st[1]) == z.factor && st[3] <= 3
	var hist []byte
	length := 0
	if fits {
		hist = st[cpHead:]
		length = int(binary.LittleEndian.Uint16(st[5:]))
		lmask := 0xFF >> z.factor
		fits = length <= lmask+255
	}
	if err := z.ResumeAt(r, in, hist, out, z.window(), fits, errs.Corrupt("reduce: checkpoint does not fit the stream")); err != nil {
		return err
	}
	z.last, z.state, z.v, z.length = st[2], st[3], st[4], length
	return nil
}
