package rarbits

import (
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Window sizing shared by the RAR 1.5–4 decoders: a power of two no
// smaller than MinWindow and no larger than MaxWindow (the largest
// distance RAR 1.5 to 2.9 can encode), nor than the data the stream can
// still reference (the dictionary, or less when the entry is smaller),
// plus Margin for the longest copy (under 300 bytes in every version).
const (
	MinWindow = 4 << 10
	MaxWindow = 4 << 20
	Margin    = 512
)

// Stepper is the algorithm behind a Stream. Step makes progress: it
// exposes the next decoded run in Out (see Flush and Emit), or sets Err
// (io.EOF at the end of the entry).
type Stepper interface{ Step() }

// Restorer is a decoder whose checkpoints Stream.ResetAt resumes: its
// Reset, and RestoreState, which takes a checkpoint's state (after a
// non-solid Reset) given the dictionary the checkpoint must have at
// least and the entry's size.
type Restorer interface {
	Stepper
	Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error
	RestoreState(src io.Reader, state []byte, minDict, size int64) error
}

// Stream is what the RAR 1.5, 2.0 and 2.9 decoders share around their
// algorithm: the pooled ring window, the stream positions, the decoded
// run waiting for the caller and the sticky error; and on them Read,
// WriteTo, the solid-continuation rules of Reset and the bookkeeping of
// Close. A decoder embeds it, calls Init once, Continue and Begin in its
// Reset and Release in its Close. The fields are exported for the
// decoders' main loops, which keep them in locals across a window run.
type Stream struct {
	Win  []byte // the ring window: stream position x lives at Win[x&Mask]
	Mask int64  // len(Win)-1
	Dict int64  // window cap for this stream

	Pos   int64 // bytes decoded since the (solid) stream began
	Wr    int64 // bytes flushed: handed out, or dropped past End
	Start int64 // first position of the current entry
	End   int64 // Start + unpacked size; math.MaxInt64 when unknown
	Size  int64 // unpacked size of the entry; -1 unknown

	Out     []byte // decoded output ready for the caller
	Err     error  // sticky; io.EOF once the entry is complete
	Done    bool   // the entry's compressed data is finished
	Started bool   // a stream is in progress (a solid entry may continue it)

	winp *[]byte
	dec  Stepper
	name string // "rar v15" etc., for errors

	// The checkpoint hook of StepLZ (SetHook): cpFn, or nil, is called
	// when the entry offset handed out reaches cpNext.
	cpNext int64
	cpFn   func() int64
}

// Init ties s to the decoder that embeds it; name prefixes its errors.
func (s *Stream) Init(dec Stepper, name string) { s.dec, s.name = dec, name }

// Continue is the first step of a decoder's Reset. For a solid entry it
// decodes (and drops) what the caller left unread of the previous one,
// from that one's source; it fails when the previous entry did not end
// cleanly, since a solid successor depends on all of it.
// It clears the checkpoint hook (SetHook).
func (s *Stream) Continue(solid bool) error {
	s.cpFn = nil
	if !solid || !s.Started {
		return nil
	}
	if s.Err == nil {
		for s.Err == nil {
			s.Out = nil
			s.dec.Step()
		}
		s.Out = nil
		if s.Err != io.EOF {
			return s.Err
		}
	}
	if s.Err != io.EOF {
		return errs.Corrupt("%s: solid entry follows a broken one", s.name)
	}
	return nil
}

// Enter is how the RAR 1.5 and 2.0 decoders' Reset starts: Continue,
// a known size (their streams have no end marker), br reading src, then
// Begin, calling fresh when the stream starts afresh (to reset the
// decoder's adaptive state).
func (s *Stream) Enter(br *Reader, src io.Reader, dict, size int64, solid bool, fresh func()) error {
	if err := s.Continue(solid); err != nil {
		return err
	}
	if size < 0 {
		return errs.Corrupt("%s: unknown unpacked size", s.name)
	}
	br.Reset(src)
	if s.Begin(dict, size, solid) {
		fresh()
	}
	return nil
}

// SetHook sets the checkpoint hook of StepLZ: fn (nil: none) is called
// whenever the decoder can take a checkpoint and the entry offset handed
// out has reached next; it returns the next offset to call it at
// (math.MaxInt64: never). Continue (so Reset and ResetAt) and Release
// clear it.
func (s *Stream) SetHook(next int64, fn func() int64) { s.cpNext, s.cpFn = next, fn }

// Hook is a decoder's checkpoint callback as SetHook takes it: fn
// called on d; nil when fn is nil.
func Hook[D any](d D, fn func(D) int64) func() int64 {
	if fn == nil {
		return nil
	}
	return func() int64 { return fn(d) }
}

// Idle reports whether the RAR 1.5 or 2.0 stream is between decode
// passes with all it decoded handed out and the entry unfinished: what
// their CanCheckpoint requires of the stream (also at the start of an
// entry that continues a solid stream).
func (s *Stream) Idle() bool {
	return s.Err == nil && s.Started && !s.Done && len(s.Out) == 0 && s.Wr == s.Pos &&
		s.Pos < s.End && s.Win != nil
}

// EntryOffset is the entry's output handed out so far.
func (s *Stream) EntryOffset() int64 { return s.Wr - s.Start }

// StepLZ is the Step of the RAR 1.5 and 2.0 decoders (no filters): hand
// out what is decoded, end the entry, or have decode run a pass up to
// limit, which keeps Margin bytes of undelivered output from being
// overwritten and stops at the entry's end and at a due checkpoint. The
// hook runs first when a checkpoint is due and can reports that the
// decoder can take one.
func (s *Stream) StepLZ(can func() bool, decode func(limit int64) error) {
	if s.Wr < s.Pos {
		s.Flush(s.Pos)
		return
	}
	if s.Done || s.Pos >= s.End {
		s.Err = io.EOF
		return
	}
	limit := min(s.Wr+int64(len(s.Win))-Margin, s.End)
	if s.cpFn != nil {
		if s.Wr-s.Start >= s.cpNext && can() {
			s.cpNext = s.cpFn()
		}
		limit = s.CPLimit(s.cpNext, limit)
	}
	if err := decode(limit); err != nil {
		s.Err = err
	}
}

// Begin starts an entry of size bytes (-1: unknown) under dictionary
// dict (0 or more than MaxWindow: MaxWindow), continuing the stream when
// solid and one is in progress. It reports whether the stream starts
// afresh, in which case the decoder resets its adaptive state.
func (s *Stream) Begin(dict, size int64, solid bool) (fresh bool) {
	if dict <= 0 || dict > MaxWindow {
		dict = MaxWindow
	}
	fresh = !solid || !s.Started
	if fresh {
		s.Dict, s.Pos = dict, 0
	} else {
		s.Dict = max(s.Dict, dict)
	}
	s.Out, s.Err, s.Done = nil, nil, false
	s.Size = size
	s.Started = true
	s.Start, s.Wr = s.Pos, s.Pos
	s.End = math.MaxInt64
	if size >= 0 && size < math.MaxInt64-s.Pos {
		s.End = s.Pos + size
	}
	s.sizeWindow(solid)
	return fresh
}

// sizeWindow makes Win hold min(Dict, everything the stream can still
// reference). It keeps the window when it is large enough; otherwise it
// takes a bigger one from the pool, carries the history over when solid
// (position x lives at x&mask in both) and returns the old one.
func (s *Stream) sizeWindow(solid bool) {
	need := s.Dict
	if s.Size >= 0 && s.Size < s.Dict {
		need = min(s.Dict, s.Pos+s.Size+Margin)
	}
	n := int64(MinWindow)
	for n < need {
		n <<= 1
	}
	if s.winp != nil && int64(len(s.Win)) >= n {
		return
	}
	p := pool.Get(int(n))
	w := *p
	if solid && s.winp != nil && s.Pos > 0 {
		win, pos := s.Win, s.Pos
		keep := min(pos, int64(len(win)))
		for x := pos - keep; x < pos; {
			i, j := int(x&s.Mask), int(x&(n-1))
			k := min(int64(len(win)-i), int64(len(w)-j), pos-x)
			copy(w[j:j+int(k)], win[i:i+int(k)])
			x += k
		}
	}
	if s.winp != nil {
		pool.Put(s.winp)
	}
	s.winp, s.Win, s.Mask = p, w, n-1
}

// Flush exposes the next contiguous run of the window between Wr and
// lim in Out (cut at End) and moves Wr past it.
func (s *Stream) Flush(lim int64) {
	i := int(s.Wr & s.Mask)
	n := int(min(lim-s.Wr, int64(len(s.Win)-i)))
	s.Emit(s.Win[i:i+n], s.Wr)
	s.Wr += int64(n)
}

// Emit hands b, which holds stream positions [at, at+len(b)), to the
// caller, dropping whatever lies past the end of the entry.
func (s *Stream) Emit(b []byte, at int64) {
	if at >= s.End {
		s.Out = nil
		return
	}
	if rem := s.End - at; int64(len(b)) > rem {
		b = b[:rem]
	}
	s.Out = b
}

// Read implements io.Reader, stepping the decoder while Out is empty.
// (unpack50's Read and WriteTo have the same shape around its own window,
// which grows and wraps differently and hands out filter output.)
// Step runs once per window run, not per byte, so calling it through the
// interface costs nothing measurable.
func (s *Stream) Read(p []byte) (int, error) {
	for len(s.Out) == 0 {
		if s.Err != nil {
			return 0, s.Err
		}
		s.dec.Step()
	}
	n := copy(p, s.Out)
	s.Out = s.Out[n:]
	return n, nil
}

// WriteTo implements io.WriterTo, writing everything the decoder
// produces to w straight from its window; the end of the entry (io.EOF)
// is a nil error.
func (s *Stream) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if len(s.Out) > 0 {
			n, werr := w.Write(s.Out)
			total += int64(n)
			s.Out = s.Out[n:]
			if werr != nil {
				return total, werr
			}
			continue
		}
		if s.Err != nil {
			if s.Err == io.EOF {
				return total, nil
			}
			return total, s.Err
		}
		s.dec.Step()
	}
}

// Release returns the window to the pool and ends the stream: a later
// Read fails, and the next Reset starts afresh.
func (s *Stream) Release() {
	s.cpFn = nil
	if s.winp != nil {
		pool.Put(s.winp)
		s.winp, s.Win, s.Mask = nil, nil, 0
	}
	s.Started = false
	s.Out = nil
	if s.Err == nil {
		s.Err = errs.Corrupt("%s: decoder closed", s.name)
	}
}

// HistoryLen is the window a checkpoint keeps: the last min(Pos,
// len(Win)) positions, all the stream can still reference.
func (s *Stream) HistoryLen() int { return int(min(s.Pos, int64(len(s.Win)))) }

// AppendHistory appends the HistoryLen bytes before Pos to dst, oldest
// first.
func (s *Stream) AppendHistory(dst []byte) []byte {
	for x := s.Pos - int64(s.HistoryLen()); x < s.Pos; {
		i := int(x & s.Mask)
		n := int(min(int64(len(s.Win)-i), s.Pos-x))
		dst = append(dst, s.Win[i:i+n]...)
		x += int64(n)
	}
	return dst
}

// Restore starts s as a checkpoint left it: a window of winLen bytes (a
// power of two from MinWindow to MaxWindow; the caller checks) whose
// last len(hist) positions before pos hold hist, the stream's
// dictionary cap dict, and an entry of size bytes (-1: unknown) that
// began at position start, with everything before pos handed out.
func (s *Stream) Restore(dict int64, winLen int, pos, start, size int64, hist []byte) {
	if s.winp == nil || len(s.Win) != winLen {
		if s.winp != nil {
			pool.Put(s.winp)
		}
		s.winp = pool.Get(winLen)
		s.Win, s.Mask = (*s.winp)[:winLen], int64(winLen-1)
	}
	for x, k := pos-int64(len(hist)), 0; k < len(hist); {
		i := int(x & s.Mask)
		n := copy(s.Win[i:], hist[k:])
		x += int64(n)
		k += n
	}
	s.Dict, s.Pos, s.Wr, s.Start, s.Size = dict, pos, pos, start, size
	s.End = math.MaxInt64
	if size >= 0 && size < math.MaxInt64-start {
		s.End = start + size
	}
	s.Out, s.Err, s.Done, s.Started = nil, nil, false, true
}
