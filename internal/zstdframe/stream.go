package zstdframe

import (
	"io"
	"math"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoint state: one version byte. At a frame boundary the decoder
// holds nothing; the offsets are the checkpoint's Out and In.
const (
	StateLen     = 1
	stateVersion = 1
)

// Stream decodes a Zstandard stream with a klauspost decoder made with
// concurrency 1 (it reads its input only as it decodes, on the caller's
// goroutine), handing it one frame at a time through a Reader. So it
// knows where each frame ends in both the input and the output, and can
// take a checkpoint there; Reset at a checkpoint's offsets starts a
// fresh decoder at that frame. Within a frame nothing can be taken.
type Stream struct {
	fr    Reader
	zd    *zstd.Decoder
	in    int64 // the source's offset in the stream
	out   int64 // output handed out, from the stream's start
	pause int64 // Read returns (0, nil) at the first boundary at or after this output
	at    bool  // between two frames, everything before handed out
	err   error // sticky
}

// Reset starts s over src with zd (concurrency 1; opts are applied to
// it), at input offset in and output offset out of the stream. state is
// nil at the stream's start, else a checkpoint's state: src must start
// with a Zstandard frame then (it is checked). A pause and a bound set
// before Reset are kept.
func (s *Stream) Reset(zd *zstd.Decoder, src io.Reader, in, out int64, state []byte, opts ...zstd.DOption) error {
	pause := s.pause
	if pause == 0 {
		pause = math.MaxInt64
	}
	b := s.fr.bound
	*s = Stream{zd: zd, in: in, out: out, pause: pause}
	s.fr.bound = b
	resumed := state != nil
	if resumed && (len(state) != StateLen || state[0] != stateVersion || in <= 0 || out < 0) {
		s.err = errs.Corrupt("zstd: checkpoint does not fit the stream")
		return s.err
	}
	s.fr.Reset(src, resumed)
	if err := zd.ResetWithOptions(&s.fr, opts...); err != nil {
		s.err = err
		return err
	}
	return nil
}

func (s *Stream) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	for {
		n, err := s.zd.Read(p)
		s.out += int64(n)
		if n > 0 {
			s.at = false
		}
		if err == io.EOF && s.fr.Stopped() {
			// The frame ended and all of it is handed out: a fresh
			// decode starts at the next one.
			s.fr.Resume()
			if err := s.zd.Reset(&s.fr); err != nil {
				s.err = err
				return n, err
			}
			s.at = true
			if n > 0 || s.out >= s.pause {
				return n, nil
			}
			continue
		}
		if err != nil {
			if fe := s.fr.Err(); fe != nil {
				err = fe // the framing error, not the decoder's view of it
			}
			s.err = err
		}
		return n, err
	}
}

// SetBound holds every frame's window to b (see Bound; b.Size counts
// from where Reset starts the source); kept across Reset.
func (s *Stream) SetBound(b Bound) { s.fr.SetBound(b) }

// CanCheckpoint reports whether s is between two frames.
func (s *Stream) CanCheckpoint() bool { return s.at && s.err == nil }

// CheckpointSize is the size of the state Checkpoint appends.
func (s *Stream) CheckpointSize() int { return StateLen }

// Checkpoint appends the state to dst; out and in are the stream's
// offsets of the next frame (in: its magic).
func (s *Stream) Checkpoint(dst []byte) (state []byte, out, in int64) {
	return append(dst, stateVersion), s.out, s.in + s.fr.At()
}

// Total is the output handed out, from the stream's start.
func (s *Stream) Total() int64 { return s.out }

// PauseAt makes Read return (0, nil) at the first frame boundary at or
// after output offset out, even one met before any output of a Read.
func (s *Stream) PauseAt(out int64) { s.pause = out }

// In is the input offset s has read to.
func (s *Stream) In() int64 { return s.in + s.fr.Offset() }
