package rarbits

import (
	"encoding/binary"
	"math"
)

// What the RAR 1.5–2.9 decoders' checkpoints share. Each decoder's state
// starts with a magic number and the window's length and dictionary;
// RAR 1.5 and 2.0 (CPHeader) follow them with the stream position and
// the entry's offset. Each decoder's ResetAt is a non-solid Reset
// followed by its restore, under ResetAt here.

// CPHeaderLen is the length of a RAR 1.5/2.0 checkpoint header.
const CPHeaderLen = 4 + 4 + 8*3

// CPHeader is the header of a RAR 1.5/2.0 checkpoint: its window's
// length, the stream's dictionary, the stream position (all decoded is
// handed out) and the entry's offset.
type CPHeader struct {
	WinLen              uint32
	Dict, Pos, EntryOff uint64
}

// AppendCPHeader appends magic and s's header to dst.
func (s *Stream) AppendCPHeader(dst []byte, magic uint32) []byte {
	b := binary.LittleEndian
	dst = b.AppendUint32(dst, magic)
	dst = b.AppendUint32(dst, uint32(len(s.Win)))
	dst = b.AppendUint64(dst, uint64(s.Dict))
	dst = b.AppendUint64(dst, uint64(s.Pos))
	return b.AppendUint64(dst, uint64(s.Pos-s.Start))
}

// ParseCPHeader reads the header at the start of st; false when st is
// shorter than min (the decoder's fixed part) or has another magic.
func ParseCPHeader(st []byte, magic uint32, min int) (CPHeader, bool) {
	b := binary.LittleEndian
	if len(st) < max(min, CPHeaderLen) || b.Uint32(st) != magic {
		return CPHeader{}, false
	}
	return CPHeader{WinLen: b.Uint32(st[4:]), Dict: b.Uint64(st[8:]), Pos: b.Uint64(st[16:]), EntryOff: b.Uint64(st[24:])}, true
}

// Fits reports whether h fits a stream whose dictionary is at least
// minDict and an entry of size bytes (-1: unknown): a window of a power
// of two from MinWindow to MaxWindow, below twice the dictionary; the
// entry's offset inside the stream and the entry.
func (h *CPHeader) Fits(minDict, size int64) bool {
	return WindowFits(h.WinLen, h.Dict, minDict) && h.Pos <= math.MaxInt64/2 && h.EntryOff <= h.Pos &&
		(size < 0 || h.EntryOff < uint64(size))
}

// WindowFits reports whether a checkpoint's window length and dictionary
// fit a stream whose dictionary is at least minDict.
func WindowFits(winLen uint32, dict uint64, minDict int64) bool {
	return winLen >= MinWindow && winLen <= MaxWindow && winLen&(winLen-1) == 0 &&
		dict >= uint64(minDict) && dict <= MaxWindow && uint64(winLen) <= max(dict, MinWindow)*2-1
}

// Keep is the history the state holds after its fixed part.
func (h *CPHeader) Keep() uint64 { return min(h.Pos, uint64(h.WinLen)) }

// RestoreCP starts s as checkpoint header h left it, for an entry of
// size bytes, with hist its Keep bytes of history (Restore).
func (s *Stream) RestoreCP(h *CPHeader, size int64, hist []byte) {
	s.Restore(int64(h.Dict), int(h.WinLen), int64(h.Pos), int64(h.Pos-h.EntryOff), size, hist)
}

// ClampDict is a declared dictionary as Reset takes it: 0 or more than
// MaxWindow means MaxWindow.
func ClampDict(dict int64) int64 {
	if dict <= 0 || dict > MaxWindow {
		return MaxWindow
	}
	return dict
}

// WindowFor is the largest window a stream whose entries declare at
// most dictionary dict uses (the history a checkpoint keeps at most):
// the dictionary rounded up to a power of two, at least MinWindow.
func WindowFor(dict int64) int64 {
	dict = ClampDict(dict)
	n := int64(MinWindow)
	for n < dict {
		n <<= 1
	}
	return n
}

// ResetAt is a decoder's ResetAt: reset (its non-solid Reset), then
// restore given the dictionary the checkpoint must have at least (the
// declared one as Reset takes it); restore's error stays in s.Err.
func (s *Stream) ResetAt(reset func() error, dict int64, restore func(minDict int64) error) error {
	if err := reset(); err != nil {
		return err
	}
	if err := restore(ClampDict(dict)); err != nil {
		s.Err = err
		return err
	}
	return nil
}

// CPLimit cuts a decode pass ending at limit at the entry offset next
// of the next checkpoint (math.MaxInt64: none).
func (s *Stream) CPLimit(next, limit int64) int64 {
	due := s.Start + next
	if next == math.MaxInt64 || due < s.Start || due <= s.Pos {
		return limit
	}
	return min(limit, due)
}
