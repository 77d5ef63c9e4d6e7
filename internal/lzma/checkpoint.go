package lzma

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Decoder checkpoints of an LZMA2 stream. Between two chunks the range
// coder holds nothing (every LZMA chunk starts a new one), so the state
// is the window (the dictionary's history), the probabilities, the LZMA
// state and distances, the properties and which reset the next chunk
// needs. Its size is the window's plus about 30 KiB (with lc+lp = 3).
//
// Layout (little endian), version 1:
//
//	u8 version, u8 need, u8 lc, u8 lp, u8 pb, u8 full
//	u32 state, rep0, rep1, rep2, rep3
//	u64 window length, u64 window position
//	u32 literal probabilities (count)
//	u16 each probability (fixed tables, then the literal coders)
//	the window's history: length bytes when full, else position bytes
const checkpointVersion = 1

// CanCheckpoint reports whether z is at a point where Checkpoint may be
// taken: between two chunks, with everything decoded delivered.
func (z *Reader2) CanCheckpoint() bool {
	return z.kind == chunkNone && z.w.rd == z.w.pos && z.err == nil && z.next != nil && z.d.m != nil
}

// CheckpointSize is the size of the state Checkpoint would append now.
func (z *Reader2) CheckpointSize() int {
	z.settleProps()
	return 6 + 5*4 + 2*8 + 4 + 2*(z.d.m.fixedLen()+len(z.d.m.lit)) + z.w.history()
}

// Checkpoint appends z's state to dst (see CanCheckpoint) and returns it
// with the offsets it applies at: out in the decoded stream, in in the
// compressed input (bytes of r consumed). ResetAt restarts from it.
func (z *Reader2) Checkpoint(dst []byte) (state []byte, out, in int64) {
	z.settleProps()
	d, w := &z.d, &z.w
	full := byte(0)
	if w.full {
		full = 1
	}
	dst = append(dst, checkpointVersion, z.need, byte(d.lc), byte(d.lp), byte(d.pb), full)
	for _, v := range [...]uint32{d.state, d.rep0, d.rep1, d.rep2, d.rep3} {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return z.appendModel(dst), z.total, z.inputOffset()
}

// settleProps gives a stream that has had no properties yet (only
// uncompressed chunks so far) the model of lc=lp=pb=0 restore expects:
// the next LZMA chunk must set new properties, which resets the model
// and the coder state, so nothing that decoding uses changes.
func (z *Reader2) settleProps() {
	if z.need >= ctrlProps {
		z.d.resetState()
	}
}

// ResetAt makes z continue an LZMA2 stream from a checkpoint: r must
// deliver the compressed input from the checkpoint's input offset in,
// dictSize and size are the stream's (as for Reset), out is the
// checkpoint's output offset (later checkpoints count from the stream's
// start again). A state that does not fit the stream is
// ErrCorrupt.
func (z *Reader2) ResetAt(r io.Reader, dictSize int64, size int64, state []byte, out, in int64, opts ...Option) error {
	if err := z.Reset(r, dictSize, size, opts...); err != nil {
		return err
	}
	return z.resumed(z.restore(state, out), in)
}

func (z *Reader2) restore(b []byte, out int64) error {
	bad := errs.Corrupt("lzma2: checkpoint does not fit the stream")
	const head = 6 + 5*4 + 2*8 + 4
	if len(b) < head || b[0] != checkpointVersion || out < 0 || z.size >= 0 && out > z.size {
		return bad
	}
	d, w := &z.d, &z.w
	need, lc, lp, pb, full := b[1], uint32(b[2]), uint32(b[3]), uint32(b[4]), b[5] == 1
	if lc > 8 || lp > 4 || pb > 4 || lc+lp > 4 || need != ctrlLZMA && need != ctrlState && need != ctrlProps && need != ctrlDict || b[5] > 1 {
		return bad
	}
	var u [5]uint32
	for i := range u {
		u[i] = binary.LittleEndian.Uint32(b[6+4*i:])
	}
	wlen := binary.LittleEndian.Uint64(b[26:])
	wpos := binary.LittleEndian.Uint64(b[34:])
	nlit := binary.LittleEndian.Uint32(b[42:])
	if u[0] >= numStates || wlen < 16 || wlen > uint64(w.max+15)&^15 || wlen%16 != 0 || wpos > wlen || nlit != litSize<<(lc+lp) {
		return bad
	}
	hist := wpos
	if full {
		hist = wlen
	}
	probs := b[head:]
	if uint64(len(probs)) != 2*uint64(d.m.fixedLen()+int(nlit))+hist {
		return bad
	}
	if u[0] >= numLitStates && !validDist(u[1], wpos, wlen, full) {
		return bad // the decoder reads at rep0 without a check after a match
	}
	d.lc, d.lp, d.pb = lc, lp, pb
	if !z.loadModel(probs, nlit, u, wlen, wpos, full) {
		return bad
	}
	z.need, z.kind, z.unpacked, z.packed = need, chunkNone, 0, 0
	z.total = out
	return nil
}

// appendModel appends what both checkpoint layouts end with: the
// window's length and position, the number of literal probabilities,
// every probability and the window's history.
func (s *core) appendModel(dst []byte) []byte {
	d, w := &s.d, &s.w
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(w.buf)))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(w.pos))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(d.m.lit)))
	dst = d.m.appendProbs(dst)
	return append(dst, w.buf[:w.history()]...)
}

// loadModel sets what appendModel wrote, its lengths checked by the
// caller (b: the probabilities, then the history), and the LZMA state
// and distances from u (state, rep0 to rep3); false: a probability out
// of range.
func (s *core) loadModel(b []byte, nlit uint32, u [5]uint32, wlen, wpos uint64, full bool) bool {
	d, w := &s.d, &s.w
	d.resetState()
	if !d.m.loadProbs(b) {
		return false
	}
	b = b[2*(d.m.fixedLen()+int(nlit)):]
	d.state, d.rep0, d.rep1, d.rep2, d.rep3 = u[0], u[1], u[2], u[3], u[4]
	n := int(wlen)
	if cap(*w.p) < n {
		pool.Put(w.p)
		w.p = pool.Get(n)
	}
	w.buf = (*w.p)[:n]
	copy(w.buf, b)
	w.pos, w.rd, w.full = int(wpos), int(wpos), full
	return true
}

// resumed finishes a ResetAt: the restore's error, or the input offset
// the checkpoint resumes at.
func (s *core) resumed(err error, in int64) error {
	if err == nil && in < 0 {
		err = errs.Corrupt("lzma: checkpoint at input offset %d", in)
	}
	if err != nil {
		s.err = err
		return err
	}
	s.inBase = in
	return nil
}

// fixedLen is the number of probabilities outside the literal coders.
func (m *model) fixedLen() int {
	n := 0
	m.eachFixed(func(p []uint16) { n += len(p) })
	return n
}

// each calls f on every probability table, in a fixed order.
func (m *model) each(f func([]uint16)) {
	m.eachFixed(f)
	m.freshAll() // a decoder's coders not used since its reset are stale
	f(m.lit)
}

func (m *model) eachFixed(f func([]uint16)) {
	f(m.isMatch[:])
	f(m.isRep[:])
	f(m.isRepG0[:])
	f(m.isRepG1[:])
	f(m.isRepG2[:])
	f(m.isRep0Long[:])
	for i := range m.posSlot {
		f(m.posSlot[i][:])
	}
	f(m.posSpec[:])
	f(m.align[:])
	for _, l := range [...]*lenModel{&m.matchLen, &m.repLen} {
		c := [2]uint16{l.choice, l.choice2}
		f(c[:])
		l.choice, l.choice2 = c[0], c[1]
		for i := range l.low {
			f(l.low[i][:])
		}
		for i := range l.mid {
			f(l.mid[i][:])
		}
		f(l.high[:])
	}
}
