package shrink

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoints. Between two codes, with the last string delivered, a
// Shrink decoder's state is its string table as it stands (prefixes,
// suffixes, the child counts and the bitmaps of defined, leaf and free
// codes: after partial clears they are not derivable from the prefixes
// alone), the code size, the previous code and its first byte, and the
// input's bit offset. There is no window: a string is its chain of
// prefixes.
//
// State layout (little endian): version (1), code size (1), previous
// code (2; 0xFFFF before the first), its first byte (1), free-queue word
// (2), then prefix (2 each), suffix (1 each) and child count (2 each) of
// every code, and the defined, leaf and queue bitmaps (8 per 64 codes).
const (
	cpVersion = 1
	cpHead    = 1 + 1 + 2 + 1 + 2 // the fields before the tables, as listed
	// StateSize is the size of every state.
	StateSize = cpHead + numCodes*5 + 3*words*8
)

// CanCheckpoint reports whether Checkpoint may be taken now.
func (z *Reader) CanCheckpoint() bool {
	return z.t != nil && z.err == nil && z.sp == len(z.t.stage) && z.size > 0 && z.prev >= 0
}

// Total is the output decoded so far.
func (z *Reader) Total() int64 { return z.n0 - z.size }

// CheckpointSize is the size of the state Checkpoint appends.
func (z *Reader) CheckpointSize() int { return StateSize }

// PauseAt makes Read stop once out bytes have been delivered (at the end
// of the string that passes it), where CanCheckpoint can hold.
func (z *Reader) PauseAt(out int64) { z.pause = max(out, 0) }

// Checkpoint appends z's state to dst (see CanCheckpoint) and returns it
// with its output offset and input offset in bits. ResetAt resumes from
// it.
func (z *Reader) Checkpoint(dst []byte) (state []byte, out, inBits int64) {
	le := binary.LittleEndian
	t := z.t
	dst = append(dst, cpVersion, byte(z.bits))
	dst = le.AppendUint16(dst, uint16(z.prev))
	dst = append(dst, z.first)
	dst = le.AppendUint16(dst, uint16(z.qword))
	for _, p := range t.prefix {
		dst = le.AppendUint16(dst, p)
	}
	dst = append(dst, t.suffix[:]...)
	for _, c := range t.children {
		dst = le.AppendUint16(dst, c)
	}
	for _, m := range [...]*[words]uint64{&t.defined, &t.leaf, &t.queue} {
		for _, w := range m {
			dst = le.AppendUint64(dst, w)
		}
	}
	return dst, z.Total(), z.br.Consumed()
}

// ResetAt makes z continue a stream of size bytes from a checkpoint: r
// delivers it from byte in/8 on. A state that does not fit is
// ErrCorrupt. Every table a state can hold decodes without going out
// of bounds; what it decodes is the caller's to check.
func (z *Reader) ResetAt(r io.Reader, size int64, state []byte, out, in int64) error {
	z.Reset(r, size)
	if z.err == nil {
		z.err = z.restore(r, state, out, in)
	}
	return z.err
}

func (z *Reader) restore(r io.Reader, b []byte, out, in int64) error {
	le := binary.LittleEndian
	bad := errs.Corrupt("shrink: checkpoint does not fit the stream")
	if len(b) != StateSize || b[0] != cpVersion || out <= 0 || out >= z.size || in < 0 {
		return bad
	}
	bits, prev, qword := uint(b[1]), int(le.Uint16(b[2:])), int(le.Uint16(b[5:]))
	if bits < minBits || bits > maxBits || prev >= numCodes || prev == control || qword > words {
		return bad
	}
	t := z.t
	p := b[cpHead:]
	for i := range numCodes {
		v := le.Uint16(p[2*i:])
		// Literals are themselves; any other code is free or has a
		// prefix in the table (which children indexes).
		if i < 256 && (v != uint16(i) || p[2*numCodes+i] != byte(i)) || v != free && v >= numCodes {
			return bad
		}
		t.prefix[i] = v
	}
	copy(t.suffix[:], p[2*numCodes:3*numCodes])
	for i := range numCodes {
		t.children[i] = le.Uint16(p[3*numCodes+2*i:])
	}
	p = p[5*numCodes:]
	for k, m := range [...]*[words]uint64{&t.defined, &t.leaf, &t.queue} {
		for i := range m {
			m[i] = le.Uint64(p[8*(k*words+i):])
		}
		// No code below the first string code is ever defined or freed.
		if m[first/64]&(1<<(first%64)-1) != 0 {
			return bad
		}
		for i := range first / 64 {
			if m[i] != 0 {
				return bad
			}
		}
	}
	// Between codes a string code is defined exactly when it has a
	// prefix (a partial clear frees a defined code's prefix, so it must
	// have one).
	for c := control; c < numCodes; c++ {
		if (t.defined[c>>6]>>(c&63)&1 != 0) != (t.prefix[c] != free) {
			return bad
		}
	}
	if err := z.br.ResetAt(r, "shrink data", in); err != nil {
		return err
	}
	z.bits, z.prev, z.first, z.qword = bits, prev, b[4], qword
	z.size -= out
	return nil
}
