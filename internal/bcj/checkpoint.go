package bcj

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoints. Between fills a Reader holds its position (ip), x86's
// previous-mask state, the few bytes it read but could not convert yet
// (an instruction split by its buffer: at most MaxHeld) and, for Delta,
// its 256-byte history. Once every converted byte has been read
// (CanCheckpoint), that is the whole of it: AppendState writes it and
// ResetState restarts a Reader from it over an input positioned Held
// bytes after the Reader's output position.
//
// State layout: kind (1), ip of the first held byte (4, little-endian),
// x86 state (1), held count (1), the held bytes; Delta adds its
// position (1) and history (256).

// MaxHeld is the most bytes a Reader holds back between fills: a
// converter leaves unconverted at most the start of one instruction
// (IA-64: a 16-byte bundle less one byte).
const MaxHeld = 16

// MaxStateSize is the largest state AppendState writes.
const MaxStateSize = 7 + MaxHeld + 1 + 256

// CanCheckpoint reports whether f's state is all in AppendState's
// output: every converted byte has been read, nothing failed, input
// has not ended.
func (f *Reader) CanCheckpoint() bool {
	return f.buf != nil && f.err == nil && !f.eof && f.start == f.done && f.end-f.done <= MaxHeld
}

// Held is the number of input bytes f has read and not yet returned.
func (f *Reader) Held() int { return f.end - f.start }

// StateSize is the size AppendState would append now.
func (f *Reader) StateSize() int {
	n := 7 + f.end - f.done
	if f.kind == Delta {
		n += 257
	}
	return n
}

// AppendState appends f's state (see CanCheckpoint) to dst.
func (f *Reader) AppendState(dst []byte) []byte {
	dst = append(dst, byte(f.kind))
	dst = binary.LittleEndian.AppendUint32(dst, f.ip+uint32(f.done))
	dst = append(dst, byte(f.state), byte(f.end-f.done))
	dst = append(dst, f.buf[f.done:f.end]...)
	if f.kind == Delta {
		dst = append(dst, f.dpos)
		dst = append(dst, f.dhist[:]...)
	}
	return dst
}

// State is a parsed filter state (ParseState).
type State struct {
	kind  Kind
	ip    uint32
	x86   uint8
	nheld uint8
	held  [MaxHeld]byte
	dpos  uint8
	dhist [256]byte
}

// ParseState checks that b is a state of filter k written by
// AppendState and returns it. The state may come from an index on disk:
// every field is checked against what a Reader can hold.
func ParseState(k Kind, b []byte) (State, error) {
	var s State
	if len(b) < 7 || Kind(b[0]) != k {
		return s, errs.Corrupt("bcj: checkpoint state of another filter")
	}
	s.kind = k
	s.ip = binary.LittleEndian.Uint32(b[1:])
	s.x86, s.nheld = b[5], b[6]
	if s.x86 > 7 || k != X86 && s.x86 != 0 {
		return s, errs.Corrupt("bcj: checkpoint with x86 state %d", s.x86)
	}
	n := int(s.nheld)
	want := 7 + n
	if k == Delta {
		want += 257
	}
	if n > MaxHeld || k == Delta && n != 0 || len(b) != want {
		return s, errs.Corrupt("bcj: checkpoint state of %d bytes holding %d", len(b), n)
	}
	copy(s.held[:], b[7:7+n])
	if k == Delta {
		s.dpos = b[7+n]
		copy(s.dhist[:], b[8+n:])
	}
	return s, nil
}

// Held is the number of input bytes s holds: the Reader's input resumes
// that many bytes after its output.
func (s *State) Held() int { return int(s.nheld) }

// IP is the stream position of the Reader's next output byte (mod 2^32,
// from the filter's start offset).
func (s *State) IP() uint32 { return s.ip }

// ResetState makes f continue from state s over r, which continues the
// filter's input s.Held() bytes after the output position of s. dist is
// Delta's distance, as for Reset.
func (f *Reader) ResetState(r io.Reader, s *State, dist int) {
	f.Reset(r, s.kind, s.ip, dist)
	f.end = copy(f.buf, s.held[:s.nheld])
	f.state = uint32(s.x86)
	f.dpos, f.dhist = s.dpos, s.dhist
}
