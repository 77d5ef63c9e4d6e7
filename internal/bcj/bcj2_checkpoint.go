package bcj

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// BCJ2 checkpoints. Between two Reads a BCJ2 decoder's state is its
// position, the previous byte, the range decoder (range, code and the
// 258 probabilities), the operand bytes it decoded and has not handed
// out yet, and what each of its four input buffers holds (read from
// the input's decoder, not used yet: at most BCJ2BufSize each). The
// inputs' decoders are checkpointed by the caller where they stand,
// after what the buffers hold.
//
// State layout (little endian):
//
//	u32 pos, u8 prev, u32 range, u32 code, u8 npend, u8 ppos, 4 pend
//	u16 each probability (258)
//	4 times: u16 held length, the held bytes
const bcj2Head = 4 + 1 + 4 + 4 + 1 + 1 + 4 + 2*(2+256)

// MaxBCJ2StateSize is the largest state AppendState of a BCJ2 writes.
const MaxBCJ2StateSize = bcj2Head + 4*2 + 32<<10 + 3*4<<10

// CanCheckpoint reports whether d's state is all in AppendState's
// output: its range decoder started and nothing failed or ended.
func (d *BCJ2) CanCheckpoint() bool { return d.init && d.err == nil && d.size != 0 }

// StateSize is the size AppendState would append now.
func (d *BCJ2) StateSize() int {
	n := bcj2Head
	for i := range d.in {
		n += 2 + d.Held(i)
	}
	return n
}

// Held is the number of bytes of input i (0 main, 1 call, 2 jump, 3
// range coder) d has read and not used: the input's decoder stands that
// many bytes after d.
func (d *BCJ2) Held(i int) int { return d.in[i].n - d.in[i].i }

// AppendState appends d's state (see CanCheckpoint) to dst.
func (d *BCJ2) AppendState(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, d.pos)
	dst = append(dst, d.prev)
	dst = binary.LittleEndian.AppendUint32(dst, d.rng)
	dst = binary.LittleEndian.AppendUint32(dst, d.code)
	dst = append(dst, byte(d.npend), byte(d.ppos))
	dst = append(dst, d.pend[:]...)
	for _, p := range d.probs {
		dst = binary.LittleEndian.AppendUint16(dst, p)
	}
	for i := range d.in {
		s := &d.in[i]
		dst = binary.LittleEndian.AppendUint16(dst, uint16(s.n-s.i))
		dst = append(dst, s.buf[s.i:s.n]...)
	}
	return dst
}

// BCJ2State is a parsed BCJ2 state (ParseBCJ2State).
type BCJ2State struct {
	pos         uint32
	prev        byte
	rng, code   uint32
	npend, ppos uint8
	pend        [4]byte
	probs       [2 + 256]uint16
	held        [4][]byte // into the parsed slice
}

// ParseBCJ2State checks that b is a BCJ2 state written by AppendState
// at output offset out and returns it (its held bytes point into b).
// The state may come from an index on disk: every field is checked
// against what a decoder can hold.
func ParseBCJ2State(b []byte, out int64) (BCJ2State, error) {
	var s BCJ2State
	bad := errs.Corrupt("bcj2: checkpoint state does not fit the stream")
	if len(b) < bcj2Head || out < 0 {
		return s, bad
	}
	s.pos, s.prev = binary.LittleEndian.Uint32(b), b[4]
	s.rng, s.code = binary.LittleEndian.Uint32(b[5:]), binary.LittleEndian.Uint32(b[9:])
	s.npend, s.ppos = b[13], b[14]
	copy(s.pend[:], b[15:19])
	if s.pos != uint32(out) || s.code >= s.rng || s.npend > 4 || s.ppos > s.npend {
		return s, bad
	}
	for i := range s.probs {
		p := binary.LittleEndian.Uint16(b[19+2*i:])
		if p == 0 || p >= 1<<bcj2ModelBits {
			return s, bad
		}
		s.probs[i] = p
	}
	rest := b[bcj2Head:]
	for i := range s.held {
		if len(rest) < 2 {
			return s, bad
		}
		n := int(binary.LittleEndian.Uint16(rest))
		if n > BCJ2BufSize(i) || n > len(rest)-2 {
			return s, bad
		}
		s.held[i], rest = rest[2:2+n], rest[2+n:]
	}
	if len(rest) != 0 {
		return s, bad
	}
	return s, nil
}

// Held is the number of bytes of input i s holds: that input's decoder
// resumes that many bytes after the BCJ2 decoder's use of it.
func (s *BCJ2State) Held(i int) int { return len(s.held[i]) }

// ResetState makes d continue from state s, taken at output offset out,
// over the inputs in, each continuing its stream s.Held(i) bytes after
// d's use of it; size is the output still to produce.
func (d *BCJ2) ResetState(in [4]io.Reader, size, out int64, s *BCJ2State) {
	d.reset(in, size)
	for i := range d.in {
		d.in[i].n = copy(d.in[i].buf, s.held[i])
	}
	d.out, d.pos, d.prev, d.rng, d.code = out, s.pos, s.prev, s.rng, s.code
	d.npend, d.ppos, d.pend, d.probs = int(s.npend), int(s.ppos), s.pend, s.probs
	d.init = true
}
