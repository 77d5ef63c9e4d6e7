package unpack15

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

// Checkpoints. Between two decode passes, with everything decoded handed
// out, the decoder's state is: the window (its size, the stream position
// and the last min(position, window) bytes: a checkpoint costs up to the
// dictionary rounded up to a power of two, at most 4 MiB, fewer bytes
// while less has been produced), every adaptive table and statistic of
// RAR 1.5 (the four character sets, the three place tables, the running
// averages and counters, the old distances and last match, the flag
// byte and its count, the "st mode"), whether the first flag byte is
// still to read, and the bit position in the entry's packed data.
// Checkpoint writes that; ResetAt restarts a decoder from it and checks
// the fields that index, size or bound a loop (the ring index, the
// Buf60 toggle, the last length, the distances); the tables themselves
// are safe whatever they hold (every use masks or renormalises them).

const cpMagic = 0x35317063 // "cp15"

// cpHeader is the fixed part of a checkpoint, before the window.
const cpHeader = rarbits.CPHeaderLen + 1 + 4*2*256 + 3*256 + 4*10 + 4*4 + 4*3 + 4*3 + 8

// CheckpointOverhead is what a checkpoint holds besides its window.
const CheckpointOverhead = cpHeader

// WindowFor is the largest window a stream whose entries declare at
// most dictionary dict uses (the history a checkpoint keeps at most).
func WindowFor(dict int64) int64 { return rarbits.WindowFor(dict) }

// maxLength bounds the last length a checkpoint may hold: valid streams
// stay far below (a 16-bit code plus small constants); the bound keeps a
// repeat of it from running long.
const maxLength = 0xffff

// OnCheckpoint asks d to call fn whenever it can take a checkpoint
// (CanCheckpoint) and the entry offset handed out has reached next; fn
// returns the next offset to call it at (math.MaxInt64: never). Reset,
// ResetAt and Close clear it. While a checkpoint is due, decode passes
// stop at its offset.
func (d *Decoder) OnCheckpoint(next int64, fn func(d *Decoder) int64) {
	d.SetHook(next, rarbits.Hook(d, fn))
}

// CanCheckpoint reports whether d is between decode passes with all it
// decoded handed out, so Checkpoint may be taken; also at the start of
// an entry that continues a solid stream.
func (d *Decoder) CanCheckpoint() bool {
	return d.Idle() && !d.br.Overrun()
}

// InputBits is the bit position in the entry's packed data of the next
// unread bit.
func (d *Decoder) InputBits() int64 { return d.br.BitPos() }

// CheckpointSize is the length of Checkpoint's state now.
func (d *Decoder) CheckpointSize() int { return cpHeader + d.HistoryLen() }

// words lists the state's 32-bit fields in checkpoint order.
func (s *state) words() [22]*uint32 {
	return [22]*uint32{&s.avrPlc, &s.avrPlcB, &s.avrLn1, &s.avrLn2, &s.avrLn3,
		&s.numHuf, &s.buf60, &s.maxDist3, &s.nhfb, &s.nlzb,
		&s.oldDist[0], &s.oldDist[1], &s.oldDist[2], &s.oldDist[3],
		&s.oldDistPtr, &s.lastDist, &s.lastLength, &s.flagBuf, &s.lCount, nil, nil, nil}
}

// Checkpoint appends d's state to dst (see CanCheckpoint, which must hold).
func (d *Decoder) Checkpoint(dst []byte) []byte {
	b := binary.LittleEndian
	s := &d.s
	dst = d.AppendCPHeader(dst, cpMagic)
	var flags byte
	if d.first {
		flags |= 1
	}
	if s.stMode {
		flags |= 2
	}
	dst = append(dst, flags)
	for _, cs := range []*[256]uint16{&s.chSet, &s.chSetA, &s.chSetB, &s.chSetC} {
		for _, v := range cs {
			dst = b.AppendUint16(dst, v)
		}
	}
	dst = append(dst, s.nToPl[:]...)
	dst = append(dst, s.nToPlB[:]...)
	dst = append(dst, s.nToPlC[:]...)
	for _, w := range s.words() {
		if w != nil {
			dst = b.AppendUint32(dst, *w)
		}
	}
	dst = b.AppendUint32(dst, uint32(int32(s.flagsCnt)))
	dst = b.AppendUint64(dst, uint64(d.br.BitPos()))
	return d.AppendHistory(dst)
}

func cpCorrupt(what string) error { return errs.Corrupt("rar v15: checkpoint %s", what) }

// RestoreState is for rarbits.Stream.ResetAt (d's ResetAt): it takes
// the state of a checkpoint after a non-solid Reset.
func (d *Decoder) RestoreState(src io.Reader, st []byte, minDict, size int64) error {
	h, r, ok := rarbits.ParseCPHeader(st, cpMagic, cpHeader)
	if !ok {
		return cpCorrupt("header")
	}
	flags := r.Byte()
	var s state
	for _, cs := range []*[256]uint16{&s.chSet, &s.chSetA, &s.chSetB, &s.chSetC} {
		for i := range cs {
			cs[i] = r.U16()
		}
	}
	for _, t := range []*[256]uint8{&s.nToPl, &s.nToPlB, &s.nToPlC} {
		copy(t[:], r.Bytes(256))
	}
	for _, w := range s.words() {
		if w != nil {
			*w = r.U32()
		}
	}
	s.flagsCnt = int(int32(r.U32()))
	bits := r.U64()
	s.stMode = flags&2 != 0
	if !h.Fits(minDict, size) || flags > 3 || s.oldDistPtr > 3 || s.buf60 > 1 || s.lastLength > maxLength ||
		s.flagsCnt < -1 || s.flagsCnt > 8 || bits > math.MaxInt64/2 {
		return cpCorrupt("fields")
	}
	hist := r.Rest()
	if bad := h.CheckHistory(hist, s.oldDist[0], s.oldDist[1], s.oldDist[2], s.oldDist[3], s.lastDist); bad != "" {
		return cpCorrupt(bad)
	}
	d.s = s
	d.first = flags&1 != 0
	d.RestoreCP(&h, size, hist)
	d.br.ResetAt(src, int64(bits))
	return nil
}
