package unpack29

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

// Checkpoints. Between two decode passes, when the decoder has handed out
// all it flushed, its whole state is:
//
//   - the window: its size, the stream position decoded (Pos), the one
//     handed out (Wr; less than Pos while a filter's block is still being
//     decoded) and the last min(Pos, window) bytes (a checkpoint costs up
//     to the window, which is the dictionary rounded up to a power of
//     two, at least 512 KiB and at most 4 MiB, fewer bytes while less has
//     been produced);
//   - the LZ state: the four old distances, the last length, the low
//     distance and its repeat count, the code lengths of the current
//     tables (the tables are rebuilt from them on restore; they are also
//     the "old table" a block header that keeps it adds its deltas to),
//     whether tables have been read and whether a block header comes
//     next (an entry that continues a solid stream after "new tables");
//   - the filters: the definitions that persist across filters and solid
//     entries (each one's standard kind, the block length of its last use,
//     which a later filter may reuse, and its execution count, R5), the
//     index a definition without one refers to, and the queued filters
//     (block start, length, kind, initial registers). RAR queues filters
//     for up to dozens of blocks ahead, so a stream with filters has one
//     queued nearly everywhere; a queued filter is plain data (the
//     standard filters run on the whole block, from the window, when it is
//     complete), so it is kept rather than waited for;
//   - the PPMd side: whether a PPMd block header has been met in the
//     stream and whether the current block is PPMd, the escape byte, and
//     once a header has set up a model, the model and its range decoder
//     (ppmd.RAR.Checkpoint). The model persists across the LZ blocks
//     after a PPMd block (a later PPMd block may continue it), so a
//     checkpoint inside a PPMd block or after one holds it: it costs up
//     to the model's memory (1 to 256 MiB as the block header declares)
//     besides the window;
//   - the bit position in the entry's packed data and the entry's offset.
//
// Checkpoint writes the state; ResetAt restarts a decoder from it and
// checks every field, since a checkpoint read from an index is
// untrusted (the model through ppmd.RAR.Restore, and it is decoded
// under ppmd.RAR.Guard).

const cpMagic = 0x39327163 // "cq29": "cp29" had no PPMd side

// cpRetry is the decode pass length while a checkpoint is due but
// output is held back by a filter whose block is not complete.
const cpRetry = 64 << 10

// cpHeader is the fixed part of a checkpoint, before the filter
// definitions and the window.
const cpHeader = 4 + 4 + 8*4 + 1 + 4*7 + tableSize + 4 + 4 + 4 + 8 + 1 + 4

// cpDef and cpQueued are the sizes of a filter definition and of a
// queued filter in a checkpoint.
const (
	cpDef    = 1 + 4 + 4
	cpQueued = 8 + 4 + 1 + 7*4
)

// CheckpointOverhead bounds what a checkpoint holds besides its window
// and its PPMd model: the fixed part and every filter definition and
// queued filter RAR allows (under 400 KiB).
const CheckpointOverhead = cpHeader + maxFilterDefs*cpDef + maxPendingFilter*cpQueued

// PPMdMax bounds the PPMd part of a checkpoint whose stream's model may
// use maxMem bytes (0: DefaultMaxMemory).
func PPMdMax(maxMem int64) int64 {
	if maxMem <= 0 || maxMem > DefaultMaxMemory {
		maxMem = DefaultMaxMemory
	}
	return maxMem + ppmd.CheckpointOverhead
}

// WindowFor is the largest window a stream whose entries declare at
// most dictionary dict uses (the history a checkpoint keeps at most).
func WindowFor(dict int64) int64 { return rarbits.WindowFor(max(rarbits.ClampDict(dict), 2*vmMemSize)) }

// PPMdLen is the length of the PPMd model's part that state declares
// (0 if it is not a checkpoint's state): a caller bounding an untrusted
// state's length adds it, at most PPMdMax, to the window's and
// CheckpointOverhead.
func PPMdLen(state []byte) int64 {
	if len(state) < cpHeader || binary.LittleEndian.Uint32(state) != cpMagic {
		return 0
	}
	return int64(binary.LittleEndian.Uint32(state[cpHeader-4:]))
}

// maxLastLength bounds the last length a valid stream leaves: the
// longest length slot plus the two long-distance increments.
const maxLastLength = 224 + 31 + 3 + 2

// OnCheckpoint asks d to call fn whenever it can take a checkpoint
// (CanCheckpoint) and the entry offset handed out has reached next; fn
// returns the next offset to call it at (math.MaxInt64: never). Reset,
// ResetAt and Close clear it. While a checkpoint is due, decode passes
// stop at its offset, so one is taken there unless a filter is queued.
func (d *Decoder) OnCheckpoint(next int64, fn func(d *Decoder) int64) {
	d.cpNext, d.cpFn = next, fn
}

// cpLimit cuts a decode pass at the next checkpoint offset, or to
// cpRetry while one is due and cannot be taken.
func (d *Decoder) cpLimit(limit int64) int64 {
	if d.cpNext == math.MaxInt64 {
		return limit
	}
	due := d.Start + d.cpNext
	if due < d.Start {
		return limit // overflow
	}
	if due <= d.Pos {
		due = d.Pos + cpRetry
	}
	return min(limit, due)
}

// CanCheckpoint reports whether d is between decode passes with all it
// flushed handed out (and, after a PPMd block header, with its model),
// so Checkpoint may be taken; also at the start of an entry that
// continues a solid stream.
func (d *Decoder) CanCheckpoint() bool {
	return d.Err == nil && d.Started && !d.Done && d.short == nil && len(d.Out) == 0 &&
		d.Wr <= d.Pos && d.Wr < d.End && d.Win != nil && (!d.ppm.used || d.ppm.rar.Ready()) &&
		!d.br.Overrun()
}

// InputBits is the bit position in the entry's packed data of the next
// unread bit.
func (d *Decoder) InputBits() int64 { return d.br.BitPos() }

// CheckpointSize is the length of Checkpoint's state now.
func (d *Decoder) CheckpointSize() int {
	return cpHeader + cpDef*len(d.flt.defs) + cpQueued*(len(d.flt.queue)-d.flt.head) + d.ppmSize() + d.HistoryLen()
}

// ppmSize is the length of the PPMd model's state in a checkpoint now.
func (d *Decoder) ppmSize() int {
	if !d.ppm.used {
		return 0
	}
	return d.ppm.rar.CheckpointSize()
}

// Checkpoint appends d's state to dst (see CanCheckpoint, which must hold).
func (d *Decoder) Checkpoint(dst []byte) []byte {
	b := binary.LittleEndian
	s := &d.lz
	dst = b.AppendUint32(dst, cpMagic)
	dst = b.AppendUint32(dst, uint32(len(d.Win)))
	dst = b.AppendUint64(dst, uint64(d.Dict))
	dst = b.AppendUint64(dst, uint64(d.Pos))
	dst = b.AppendUint64(dst, uint64(d.Wr))
	dst = b.AppendUint64(dst, uint64(d.Wr-d.Start))
	var flags byte
	if s.tablesRead {
		flags |= 1
	}
	if d.header {
		flags |= 2
	}
	if d.ppm.used {
		flags |= 4
	}
	if d.ppm.active {
		flags |= 8
	}
	dst = append(dst, flags)
	for _, o := range s.oldDist {
		dst = b.AppendUint32(dst, o)
	}
	dst = b.AppendUint32(dst, s.lastLength)
	dst = b.AppendUint32(dst, s.lowDist)
	dst = b.AppendUint32(dst, s.lowDistRep)
	dst = append(dst, s.oldTable[:]...)
	dst = b.AppendUint32(dst, uint32(d.flt.last))
	dst = b.AppendUint32(dst, uint32(len(d.flt.defs)))
	dst = b.AppendUint32(dst, uint32(len(d.flt.queue)-d.flt.head))
	dst = b.AppendUint64(dst, uint64(d.br.BitPos()))
	dst = append(dst, d.ppm.esc)
	dst = b.AppendUint32(dst, uint32(d.ppmSize()))
	for _, f := range d.flt.defs {
		dst = append(dst, byte(f.kind))
		dst = b.AppendUint32(dst, f.lastLen)
		dst = b.AppendUint32(dst, f.execCount)
	}
	for _, q := range d.flt.queue[d.flt.head:] {
		dst = b.AppendUint64(dst, uint64(q.start))
		dst = b.AppendUint32(dst, q.length)
		dst = append(dst, byte(q.kind))
		for _, r := range q.r {
			dst = b.AppendUint32(dst, r)
		}
	}
	if d.ppm.used {
		dst = d.ppm.rar.Checkpoint(dst)
	}
	return d.AppendHistory(dst)
}

func cpCorrupt(what string) error { return errs.Corrupt("rar v29: checkpoint %s", what) }

// RestoreState is for rarbits.Stream.ResetAt (d's ResetAt): it takes
// the state of a checkpoint after a non-solid Reset. The window holds
// the VM's memory too: at least 2*vmMemSize.
func (d *Decoder) RestoreState(src io.Reader, st []byte, minDict, size int64) error {
	minDict = max(minDict, 2*vmMemSize)
	b := binary.LittleEndian
	if len(st) < cpHeader || b.Uint32(st) != cpMagic {
		return cpCorrupt("header")
	}
	p := 4
	u32 := func() uint32 { v := b.Uint32(st[p:]); p += 4; return v }
	u64 := func() uint64 { v := b.Uint64(st[p:]); p += 8; return v }
	winLen := u32()
	dict, pos, wr, entryOff := u64(), u64(), u64(), u64()
	flags := st[p]
	p++
	var old [4]uint32
	for i := range old {
		old[i] = u32()
	}
	lastLen, lowDist, lowRep := u32(), u32(), u32()
	table := st[p : p+tableSize]
	p += tableSize
	last, ndefs, nq := u32(), u32(), u32()
	bits := u64()
	esc := st[p]
	p++
	nppm := u32()
	if !rarbits.WindowFits(winLen, dict, minDict) || pos > math.MaxInt64/2 || wr > pos || pos-wr > uint64(winLen-margin) || entryOff > wr ||
		size >= 0 && entryOff >= uint64(size) || nq > maxPendingFilter ||
		flags > 15 || flags&8 != 0 && flags&4 == 0 || flags&4 == 0 && (esc != 2 || nppm != 0) ||
		flags&4 != 0 && uint64(nppm) > uint64(PPMdMax(d.MaxMemory)) || lastLen > maxLastLength || lowDist >= lowDistRep || lowRep >= lowDistRep ||
		ndefs > maxFilterDefs || last > ndefs || bits > math.MaxInt64/2 {
		return cpCorrupt("fields")
	}
	keep := min(pos, uint64(winLen))
	for _, o := range old {
		if uint64(o) > keep {
			return cpCorrupt("distance outside the window")
		}
	}
	if uint64(len(st)-p) != uint64(ndefs)*cpDef+uint64(nq)*cpQueued+uint64(nppm)+keep {
		return cpCorrupt("length")
	}
	for _, l := range table {
		if l > 15 {
			return cpCorrupt("code length")
		}
	}
	f := &d.flt
	for range ndefs {
		k := filterKind(st[p])
		if k > filterAudio {
			return cpCorrupt("filter kind")
		}
		f.defs = append(f.defs, filterDef{kind: k, lastLen: b.Uint32(st[p+1:]), execCount: b.Uint32(st[p+5:])})
		p += cpDef
	}
	f.last = int(last)
	for range nq {
		q := pendingFilter{start: int64(b.Uint64(st[p:])), length: b.Uint32(st[p+8:]), kind: filterKind(st[p+12])}
		p += 13
		for i := range q.r {
			q.r[i] = b.Uint32(st[p:])
			p += 4
		}
		// In order, not overlapping (push's rule), none before the
		// output handed out, each a standard filter on a VM-sized block.
		if q.start < int64(wr) || q.start > math.MaxInt64/2 || q.length > vmMemSize || q.kind == 0 || q.kind > filterAudio {
			return cpCorrupt("queued filter")
		}
		if n := len(f.queue); n > 0 {
			if pr := f.queue[n-1]; pr.start > q.start || pr.start == q.start && pr.length != q.length ||
				pr.start < q.start && pr.start+int64(pr.length) > q.start {
				return cpCorrupt("queued filters overlap")
			}
		}
		if f.queue == nil {
			f.queue = make([]pendingFilter, 0, max(16, nq))
		}
		f.queue = append(f.queue, q)
	}
	s := &d.lz
	copy(s.oldTable[:], table)
	s.tablesRead = flags&1 != 0
	if s.tablesRead {
		t := s.oldTable[:]
		if s.main.Build(t[:mainSyms]) != nil || s.dist.Build(t[mainSyms:mainSyms+distSyms]) != nil ||
			s.low.Build(t[mainSyms+distSyms:mainSyms+distSyms+lowDistSyms]) != nil ||
			s.rep.Build(t[mainSyms+distSyms+lowDistSyms:]) != nil {
			return cpCorrupt("code lengths")
		}
	} else if flags&(2|8) == 0 {
		return cpCorrupt("LZ state without tables")
	}
	s.oldDist, s.lastLength, s.lowDist, s.lowDistRep = old, lastLen, lowDist, lowRep
	d.header = flags&2 != 0
	ppmState := st[p : p+int(nppm)]
	p += int(nppm)
	d.Restore(int64(dict), int(winLen), int64(pos), int64(wr-entryOff), size, st[p:])
	d.Wr = int64(wr)
	d.br.ResetAt(src, int64(bits))
	d.ppm.used, d.ppm.active, d.ppm.esc = flags&4 != 0, flags&8 != 0, esc
	if d.ppm.used {
		d.ppm.rar.MaxMemory = int(d.ppmLimit())
		if err := d.ppm.rar.Restore((*byteSource)(&d.br), ppmState); err != nil {
			return err
		}
		d.ppm.guard = true
	}
	return nil
}
