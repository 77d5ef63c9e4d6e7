package rarbits

import (
	"encoding/binary"
	"io"
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

// ParseCPHeader reads the header at the start of st and returns a
// CPReader of the fields after it; false when st is shorter than min
// (the decoder's fixed part) or has another magic.
func ParseCPHeader(st []byte, magic uint32, min int) (CPHeader, *CPReader, bool) {
	b := binary.LittleEndian
	if len(st) < max(min, CPHeaderLen) || b.Uint32(st) != magic {
		return CPHeader{}, nil, false
	}
	h := CPHeader{WinLen: b.Uint32(st[4:]), Dict: b.Uint64(st[8:]), Pos: b.Uint64(st[16:]), EntryOff: b.Uint64(st[24:])}
	return h, &CPReader{st: st, p: CPHeaderLen}, true
}

// CPReader reads a checkpoint's little-endian fields in order. The
// caller has checked that the fixed part is there (ParseCPHeader's min).
type CPReader struct {
	st []byte
	p  int
}

// Byte reads one byte.
func (r *CPReader) Byte() byte { r.p++; return r.st[r.p-1] }

// U16 reads a uint16.
func (r *CPReader) U16() uint16 { r.p += 2; return binary.LittleEndian.Uint16(r.st[r.p-2:]) }

// U32 reads a uint32.
func (r *CPReader) U32() uint32 { r.p += 4; return binary.LittleEndian.Uint32(r.st[r.p-4:]) }

// U64 reads a uint64.
func (r *CPReader) U64() uint64 { r.p += 8; return binary.LittleEndian.Uint64(r.st[r.p-8:]) }

// Bytes reads n bytes (aliasing the state).
func (r *CPReader) Bytes(n int) []byte { r.p += n; return r.st[r.p-n : r.p] }

// Rest is what follows the fields read so far: the history.
func (r *CPReader) Rest() []byte { return r.st[r.p:] }

// CheckHistory reports what in a state does not fit header h: a distance
// of dists reaching past the history it keeps, or a history hist that is
// not Keep bytes long; "" when all fit.
func (h *CPHeader) CheckHistory(hist []byte, dists ...uint32) string {
	keep := h.Keep()
	for _, d := range dists {
		if uint64(d) > keep {
			return "distance outside the window"
		}
	}
	if uint64(len(hist)) != keep {
		return "length"
	}
	return ""
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

// ResetAt prepares the decoder to continue an entry from a checkpoint:
// src holds the entry's packed data from byte InputBits/8 of the
// checkpoint on; dictSize and unpackedSize are the entry's, as for Reset
// (non-solid). State that does not fit them is ErrCorrupt. Reading then
// yields the entry's content from the checkpoint's EntryOffset.
//
// It is the decoder's non-solid Reset, then its RestoreState given the
// declared dictionary as Reset takes it; that error stays in s.Err. The
// decoder given to Init must be a Restorer.
func (s *Stream) ResetAt(src io.Reader, dictSize, unpackedSize int64, state []byte) error {
	d := s.dec.(Restorer)
	if err := d.Reset(src, dictSize, unpackedSize, false); err != nil {
		return err
	}
	if err := d.RestoreState(src, state, ClampDict(dictSize), unpackedSize); err != nil {
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
