package lzma

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Decoder checkpoints of an LZMA1 stream (7z's LZMA coder). LZMA1 has no
// chunk boundaries: its range coder runs from the first byte to the
// last, so a checkpoint is the whole decoder state at a point where
// everything decoded has been delivered: the range coder (range, code
// and the input offset), the probabilities, the LZMA state, the four
// distances, the length still to copy of a match cut by the previous
// step, and the window's history. Its size is the window's (the
// dictionary, or the stream's size when smaller) plus 2 bytes per
// probability: about 28 KiB with lc+lp = 3 (7-Zip's default), up to
// 6 MiB with lc+lp = 12.
//
// Layout (little endian), version 1:
//
//	u8 version, u8 lc, u8 lp, u8 pb, u8 full
//	u32 state, rep0, rep1, rep2, rep3, range, code, remLen
//	u64 window length, u64 window position
//	u32 literal probabilities (count)
//	u16 each probability (fixed tables, then the literal coders)
//	the window's history: length bytes when full, else position bytes
const checkpoint1Version = 1

const checkpoint1Head = 5 + 8*4 + 2*8 + 4

// maxMatchLen is the longest LZMA match.
const maxMatchLen = 273

// CanCheckpoint reports whether z is at a point where Checkpoint may be
// taken: the range coder started, everything decoded delivered, no
// error.
func (z *Reader) CanCheckpoint() bool {
	return z.started && z.w.rd == z.w.pos && z.err == nil && z.next != nil && z.d.m != nil
}

// CheckpointSize is the size of the state Checkpoint would append now.
func (z *Reader) CheckpointSize() int {
	return checkpoint1Head + 2*(z.d.m.fixedLen()+len(z.d.m.lit)) + z.w.history()
}

// history is the number of bytes of the window that are history.
func (w *window) history() int {
	if w.full {
		return len(w.buf)
	}
	return w.pos
}

// Checkpoint appends z's state to dst (see CanCheckpoint) and returns it
// with the offsets it applies at: out in the decoded stream, in in the
// compressed input (bytes of r consumed). ResetAt restarts from it.
func (z *Reader) Checkpoint(dst []byte) (state []byte, out, in int64) {
	d, w := &z.d, &z.w
	full := byte(0)
	if w.full {
		full = 1
	}
	dst = append(dst, checkpoint1Version, byte(d.lc), byte(d.lp), byte(d.pb), full)
	for _, v := range [...]uint32{d.state, d.rep0, d.rep1, d.rep2, d.rep3, d.rng, d.code, uint32(d.remLen)} {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return z.appendModel(dst), z.total, z.inputOffset()
}

// ResetAt makes z continue an LZMA1 stream from a checkpoint: r must
// deliver the compressed input from the checkpoint's input offset in;
// p and size are the stream's (as for Reset), out is the checkpoint's
// output offset (later checkpoints count from the stream's start
// again). A state that does not fit the stream (other properties, a
// window larger than the stream's, positions, distances or coder values
// out of range) is ErrCorrupt; nothing is read from r.
func (z *Reader) ResetAt(r io.Reader, p Props, size int64, state []byte, out, in int64, opts ...Option) error {
	if err := z.Reset(r, p, size, opts...); err != nil {
		return err
	}
	return z.resumed(z.restore(state, out), in)
}

func (z *Reader) restore(b []byte, out int64) error {
	bad := errs.Corrupt("lzma: checkpoint does not fit the stream")
	if len(b) < checkpoint1Head || b[0] != checkpoint1Version || out < 0 || z.size >= 0 && out > z.size {
		return bad
	}
	d, w := &z.d, &z.w
	lc, lp, pb, fullb := uint32(b[1]), uint32(b[2]), uint32(b[3]), b[4]
	if lc != d.lc || lp != d.lp || pb != d.pb || fullb > 1 {
		return bad
	}
	full := fullb == 1
	var u [8]uint32
	for i := range u {
		u[i] = binary.LittleEndian.Uint32(b[5+4*i:])
	}
	state, rng, code, remLen := u[0], u[5], u[6], u[7]
	wlen := binary.LittleEndian.Uint64(b[37:])
	wpos := binary.LittleEndian.Uint64(b[45:])
	nlit := binary.LittleEndian.Uint32(b[53:])
	if state >= numStates || rng < topValue || code >= rng || remLen > maxMatchLen ||
		wlen < 16 || wlen > uint64(w.max+15)&^15 || wlen%16 != 0 || wpos > wlen ||
		nlit != litSize<<(lc+lp) {
		return bad
	}
	// The window's position is the stream's modulo its length (a multiple
	// of 16, as the position contexts need); before it wraps, exactly.
	if !full && wpos != uint64(out) || full && (uint64(out) < wlen || wpos%16 != uint64(out)%16) {
		return bad
	}
	hist := wpos
	if full {
		hist = wlen
	}
	probs := b[checkpoint1Head:]
	if uint64(len(probs)) != 2*uint64(d.m.fixedLen()+int(nlit))+hist {
		return bad
	}
	if !validDist(u[1], wpos, wlen, full) && (state >= numLitStates || remLen > 0) {
		return bad // the decoder reads at rep0 without a check here
	}
	if !z.loadModel(probs, nlit, [5]uint32{state, u[1], u[2], u[3], u[4]}, wlen, wpos, full) {
		return bad
	}
	d.rng, d.code, d.remLen = rng, code, int(remLen)
	z.total = out
	z.started = true
	return nil
}

// validDist reports whether the match distance rep (minus one) reaches
// into the history of a window of length wlen at position wpos, as
// decode checks it when a match starts.
func validDist(rep uint32, wpos, wlen uint64, full bool) bool {
	return uint64(rep) < wpos || full && uint64(rep) < wlen
}

// appendProbs appends every probability, in each's order.
func (m *model) appendProbs(dst []byte) []byte {
	m.each(func(p []uint16) {
		for _, v := range p {
			dst = binary.LittleEndian.AppendUint16(dst, v)
		}
	})
	return dst
}

// loadProbs sets every probability from b (appendProbs's layout; the
// literal coders already sized), failing on a value no decoder can
// reach: a probability is always in (0, 2048).
func (m *model) loadProbs(b []byte) bool {
	ok := true
	m.each(func(p []uint16) {
		for i := range p {
			v := binary.LittleEndian.Uint16(b)
			b = b[2:]
			if v == 0 || v >= 2048 {
				ok = false
			}
			p[i] = v
		}
	})
	return ok
}
