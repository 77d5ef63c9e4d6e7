package unpack20

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

// Checkpoints. Between two decode passes, with everything decoded handed
// out (RAR 2.0 has no filters: a pass's output is flushed whole), the
// decoder's state is: the window (its size, the stream position and the
// last min(position, window) bytes: a checkpoint costs up to the
// dictionary rounded up to a power of two, at most 4 MiB), the four old
// distances and their ring index, the last distance and length, the
// code lengths of the current tables (1028 bytes: the LZ or up to four
// audio tables, rebuilt from them on restore, and what a table switch
// that keeps them adds its deltas to), whether a block is audio, its
// channel count and current channel, the four channels' predictors and
// the channel delta, whether tables have been read and whether a table
// switch comes next, and the bit position in the entry's packed data.
// Checkpoint writes that; ResetAt restarts a decoder from it and checks
// every field that indexes or sizes anything (the predictors are plain
// arithmetic: any values are safe).

const cpMagic = 0x30327063 // "cp20"

// cpHeader is the fixed part of a checkpoint, before the window.
const cpHeader = rarbits.CPHeaderLen + 3 + 4*8 + 4*avSize + audioSyms*4 + 8

// avSize is one channel's predictor in a checkpoint: 23 words.
const avSize = 4 * (5 + 4 + 1 + 11 + 1 + 1)

// CheckpointOverhead is what a checkpoint holds besides its window.
const CheckpointOverhead = cpHeader

// WindowFor is the largest window a stream whose entries declare at
// most dictionary dict uses (the history a checkpoint keeps at most).
func WindowFor(dict int64) int64 { return rarbits.WindowFor(dict) }

// maxLength bounds the last length a valid stream leaves: the longest
// length slot plus the distance increments.
const maxLength = 224 + 31 + 3 + 3

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
	return d.Idle() && (d.tablesRead || d.header) && !d.br.Overrun()
}

// InputBits is the bit position in the entry's packed data of the next
// unread bit.
func (d *Decoder) InputBits() int64 { return d.br.BitPos() }

// CheckpointSize is the length of Checkpoint's state now.
func (d *Decoder) CheckpointSize() int { return cpHeader + d.HistoryLen() }

// Checkpoint appends d's state to dst (see CanCheckpoint, which must hold).
func (d *Decoder) Checkpoint(dst []byte) []byte {
	b := binary.LittleEndian
	dst = d.AppendCPHeader(dst, cpMagic)
	var flags byte
	if d.tablesRead {
		flags |= 1
	}
	if d.header {
		flags |= 2
	}
	if d.audio {
		flags |= 4
	}
	dst = append(dst, flags, byte(d.channels), byte(d.cur))
	for _, o := range d.oldDist {
		dst = b.AppendUint32(dst, o)
	}
	dst = b.AppendUint32(dst, d.oldDistPtr)
	dst = b.AppendUint32(dst, d.lastDist)
	dst = b.AppendUint32(dst, d.lastLength)
	dst = b.AppendUint32(dst, uint32(d.channelDelta))
	for i := range d.av {
		v := &d.av[i]
		for _, k := range v.k {
			dst = b.AppendUint32(dst, uint32(k))
		}
		for _, x := range v.d {
			dst = b.AppendUint32(dst, uint32(x))
		}
		dst = b.AppendUint32(dst, uint32(v.lastDelta))
		for _, x := range v.dif {
			dst = b.AppendUint32(dst, x)
		}
		dst = b.AppendUint32(dst, v.byteCount)
		dst = b.AppendUint32(dst, uint32(v.lastChar))
	}
	dst = append(dst, d.oldTable[:]...)
	dst = b.AppendUint64(dst, uint64(d.br.BitPos()))
	return d.AppendHistory(dst)
}

func cpCorrupt(what string) error { return errs.Corrupt("rar v20: checkpoint %s", what) }

// RestoreState is for rarbits.Stream.ResetAt (d's ResetAt): it takes
// the state of a checkpoint after a non-solid Reset.
func (d *Decoder) RestoreState(src io.Reader, st []byte, minDict, size int64) error {
	h, r, ok := rarbits.ParseCPHeader(st, cpMagic, cpHeader)
	if !ok {
		return cpCorrupt("header")
	}
	u32 := r.U32
	flags, channels, cur := r.Byte(), int(r.Byte()), int(r.Byte())
	var old [4]uint32
	for i := range old {
		old[i] = u32()
	}
	ptr, lastDist, lastLen, chDelta := u32(), u32(), u32(), int32(u32())
	var av [4]audioVars
	for i := range av {
		v := &av[i]
		for j := range v.k {
			v.k[j] = int32(u32())
		}
		for j := range v.d {
			v.d[j] = int32(u32())
		}
		v.lastDelta = int32(u32())
		for j := range v.dif {
			v.dif[j] = u32()
		}
		v.byteCount, v.lastChar = u32(), int32(u32())
	}
	table := r.Bytes(len(d.oldTable))
	bits := r.U64()
	if !h.Fits(minDict, size) || flags > 7 || flags&3 == 0 || channels < 1 || channels > 4 || cur >= channels ||
		ptr > 3 || lastLen > maxLength || bits > math.MaxInt64/2 {
		return cpCorrupt("fields")
	}
	hist := r.Rest()
	if bad := h.CheckHistory(hist, old[0], old[1], old[2], old[3], lastDist); bad != "" {
		return cpCorrupt(bad)
	}
	for _, l := range table {
		if l > 15 {
			return cpCorrupt("code length")
		}
	}
	copy(d.oldTable[:], table)
	d.tablesRead, d.header, d.audio = flags&1 != 0, flags&2 != 0, flags&4 != 0
	d.channels, d.cur = channels, cur
	if d.tablesRead {
		t := d.oldTable[:]
		if d.audio {
			for c := 0; c < channels; c++ {
				if d.md[c].Build(t[c*audioSyms:(c+1)*audioSyms]) != nil {
					return cpCorrupt("code lengths")
				}
			}
		} else if d.main.Build(t[:mainSyms]) != nil || d.dist.Build(t[mainSyms:mainSyms+distSyms]) != nil ||
			d.rep.Build(t[mainSyms+distSyms:lzTable]) != nil {
			return cpCorrupt("code lengths")
		}
	}
	d.oldDist, d.oldDistPtr, d.lastDist, d.lastLength = old, ptr, lastDist, lastLen
	d.channelDelta, d.av = chDelta, av
	d.RestoreCP(&h, size, hist)
	d.br.ResetAt(src, int64(bits))
	return nil
}
