package implode

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoints. Between two symbols, with all output delivered, an
// Implode decoder's state is the last 4 or 8 KiB of output (the longest
// distance back) and its input's bit offset; the trees are static, read
// again from the stream's start on resuming.
//
// State layout: version (1), the window flags (1: bit 0 an 8 KiB window,
// bit 1 a literal tree), the history (the window, or all the output when
// shorter).
const cpVersion = 1

// window is the farthest a match of z reaches back.
func (z *Reader) window() int { return 64 << z.lowBits }

func (z *Reader) flagByte() byte {
	b := byte(0)
	if z.lowBits == 7 {
		b |= 1
	}
	if z.literals {
		b |= 2
	}
	return b
}

// CheckpointSize is the size of the state Checkpoint appends now.
func (z *Reader) CheckpointSize() int { return 2 + z.HistoryLen(z.window()) }

// Checkpoint appends z's state to dst (see CanCheckpoint) and returns it
// with its output offset and input offset in bits. ResetAt resumes from
// it.
func (z *Reader) Checkpoint(dst []byte) (state []byte, out, inBits int64) {
	dst = append(dst, cpVersion, z.flagByte())
	return z.AppendHistory(dst, z.window()), int64(z.W), z.Br.Consumed()
}

// ResetAt makes z continue a stream from a checkpoint: hdr reads the
// stream from its start (for its trees), r from byte in/8 on; size,
// bigWindow and literals are as for Reset. A state that does not fit is
// ErrCorrupt.
func (z *Reader) ResetAt(hdr, r io.Reader, size int64, bigWindow, literals bool, state []byte, out, in int64) error {
	z.Reset(hdr, size, bigWindow, literals)
	if z.Err == nil {
		z.Err = z.resetAt(r, state, out, in)
	}
	return z.Err
}

func (z *Reader) resetAt(r io.Reader, st []byte, out, in int64) error {
	fits := len(st) >= 2 && st[0] == cpVersion && st[1] == z.flagByte()
	var hist []byte
	if fits {
		hist = st[2:]
	}
	return z.ResumeAt(r, in, hist, out, z.window(), fits, errs.Corrupt("implode: checkpoint does not fit the stream"))
}
