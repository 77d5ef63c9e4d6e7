package deflate

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Decoder checkpoints. At a block boundary a Deflate decoder's whole
// state is the history a match may reach back into (the last 32 KiB;
// 64 KiB for Deflate64) and the input position, in bits: the next block
// header may start inside a byte. A checkpoint is taken where Read
// leaves the decoder between blocks with everything handed out; PauseAt
// makes it stop there.
//
// State layout, version 1: u8 version, u8 d64, then the history.
const checkpointVersion = 1

// PauseAt makes the decoder stop at the first block boundary at or after
// output offset out (once), so that CanCheckpoint becomes true when the
// output before it has been read. 0 cancels.
func (z *Reader) PauseAt(out int64) { z.pauseAt = out }

// CanCheckpoint reports whether Checkpoint may be taken now: between two
// blocks (not after the final one), with all output handed out.
func (z *Reader) CanCheckpoint() bool {
	return z.err == nil && z.state == stHeader && !z.final && z.rp == z.op && z.copyLen == 0 && z.out != nil
}

// Total returns the output decoded so far.
func (z *Reader) Total() int64 { return z.slid + int64(z.op) }

// CheckpointSize is the size of the state Checkpoint appends now.
func (z *Reader) CheckpointSize() int { return 2 + min(z.op, z.win) }

// Checkpoint appends the state to dst (see CanCheckpoint) and returns it
// with the output offset and the input offset in bits from the start of
// the stream. ResetAt resumes from it.
func (z *Reader) Checkpoint(dst []byte) (state []byte, out, inBits int64) {
	d64 := byte(0)
	if z.d64 {
		d64 = 1
	}
	dst = append(dst, checkpointVersion, d64)
	dst = append(dst, z.out[max(0, z.op-z.win):z.op]...)
	consumed := z.disc
	if z.pk != nil {
		consumed += int64(z.ip)
	}
	return dst, z.Total(), consumed*8 - int64(z.nb)
}

// ResetAt makes z resume a stream from a checkpoint: r must deliver the
// input from byte inBits/8 of the stream; the first inBits%8 bits of that
// byte are skipped. out is the checkpoint's output offset. A state that
// does not fit is ErrCorrupt.
func (z *Reader) ResetAt(r io.Reader, state []byte, out, inBits int64) error {
	if len(state) < 2 || state[0] != checkpointVersion || state[1] > 1 || out < 0 || inBits < 0 {
		return errs.Corrupt("deflate: checkpoint does not fit the stream")
	}
	z.Reset(r, state[1] == 1)
	if z.err != nil {
		return z.err
	}
	hist := state[2:]
	if len(hist) > z.win || int64(len(hist)) > out {
		z.err = errs.Corrupt("deflate: checkpoint does not fit the stream")
		return z.err
	}
	if z.out == nil || len(z.out) < 4*z.win {
		if z.wbuf != nil {
			pool.Put(z.wbuf)
		}
		z.setBuffer(pool.Get(4*z.win), 0)
	}
	z.op = copy(z.out, hist)
	z.rp = z.op
	z.slid = out - int64(z.op)
	z.disc = inBits / 8
	if skip := uint(inBits % 8); skip > 0 {
		if !z.need(skip) {
			return z.err
		}
		z.take(skip) // the byte read counts as consumed, its rest stays in bits
	}
	return nil
}
