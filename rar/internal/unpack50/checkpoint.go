package unpack50

import (
	"encoding/binary"
	"io"
	"math"
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoints. Between two decode passes, when every byte produced has
// been handed out (no filter pending or being gathered), the decoder's
// whole state is: the window (the last min(produced, dictionary) bytes),
// the write position, the repeated distances and last length, the code
// lengths of the current tables (the tables are rebuilt from them), the
// current block's end and last-block flag, and the bit position in the
// entry's packed data. Checkpoint writes that; ResetAt restarts a decoder
// from it with the packed data positioned at byte In/8. The bit position
// need not be on a block boundary: it is kept exactly. A checkpoint costs
// the window: up to the dictionary size.

const cpMagic = 0x35706372 // "rcp5"

// cpRetry is the decode pass length while a checkpoint is due but a
// filter is pending.
const cpRetry = 64 << 10

// cpHeader is the fixed part of a checkpoint, before the code lengths
// and the window.
const cpHeader = 4 + 1 + 8*4 + 8*4 + 4 + 8*2 + 1 + 8 + 4

// OnCheckpoint asks d to call fn whenever it can take a checkpoint
// (CanCheckpoint) and the entry offset handed out has reached next; fn
// returns the next offset to call it at (math.MaxInt64: never). Reset
// and ResetAt clear it.
func (d *Decoder) OnCheckpoint(next int64, fn func(d *Decoder) int64) {
	d.cpNext, d.cpFn = next, fn
}

// CanCheckpoint reports whether d is between decode passes with all it
// produced handed out and nothing pending, so Checkpoint may be taken;
// also at the start of an entry that continues a solid stream (its
// first block header not read yet).
func (d *Decoder) CanCheckpoint() bool {
	return d.err == nil && d.started && d.haveTables && !d.streamDone && len(d.out) == 0 &&
		d.fhead >= len(d.filters) && d.fgot == 0 && d.rpos == d.total &&
		d.total < d.entryEnd && d.blockEnd >= -1 && d.t != nil && d.win != nil
}

// EntryOffset is the entry's output handed out so far.
func (d *Decoder) EntryOffset() int64 { return d.rpos - d.entryStart }

// InputBits is the bit position in the entry's packed data of the next
// unread bit.
func (d *Decoder) InputBits() int64 { return d.br.bitPos() }

// winKept is the window part a checkpoint holds.
func (d *Decoder) winKept() int {
	if d.linear() {
		return d.w
	}
	return d.wsize
}

// CheckpointSize is the length of Checkpoint's state now.
func (d *Decoder) CheckpointSize() int { return cpHeader + len(d.t.lens) + d.winKept() }

// Checkpoint appends d's state to dst (see CanCheckpoint, which must hold).
func (d *Decoder) Checkpoint(dst []byte) []byte {
	b := binary.LittleEndian
	dst = b.AppendUint32(dst, cpMagic)
	ver := byte(0)
	if d.extraDist {
		ver = 1
	}
	dst = append(dst, ver)
	dst = b.AppendUint64(dst, uint64(d.dict))
	dst = b.AppendUint64(dst, uint64(d.wsize))
	dst = b.AppendUint64(dst, uint64(d.w))
	dst = b.AppendUint64(dst, uint64(d.total))
	for _, o := range d.oldDist {
		dst = b.AppendUint64(dst, o)
	}
	dst = b.AppendUint32(dst, uint32(d.lastLen))
	dst = b.AppendUint64(dst, uint64(d.rpos-d.entryStart))
	dst = b.AppendUint64(dst, uint64(d.blockEnd+1)) // -1: before the entry's first block
	last := byte(0)
	if d.lastBlock {
		last = 1
	}
	dst = append(dst, last)
	dst = b.AppendUint64(dst, uint64(d.br.bitPos()))
	dst = b.AppendUint32(dst, uint32(len(d.t.lens)))
	dst = append(dst, d.t.lens[:]...)
	return append(dst, d.win[:d.winKept()]...)
}

func cpCorrupt(what string) error { return errs.Corrupt("rar5: checkpoint %s", what) }

// ResetAt prepares d to continue an entry from a checkpoint: src holds
// the entry's packed data from byte InputBits/8 of the checkpoint on;
// version, dictSize and unpackedSize are the entry's, as for
// ResetVersion. State that does not fit them is ErrCorrupt. Reading d
// then yields the entry's content from the checkpoint's EntryOffset.
func (d *Decoder) ResetAt(src io.Reader, version int, dictSize, unpackedSize int64, state []byte) error {
	if d.t != nil || d.started {
		d.Close()
	}
	if err := d.ResetVersion(src, version, dictSize, unpackedSize, false); err != nil {
		return err
	}
	if err := d.restore(state, version, unpackedSize); err != nil {
		d.err = err
		return err
	}
	return nil
}

func (d *Decoder) restore(s []byte, version int, size int64) error {
	b := binary.LittleEndian
	if len(s) < cpHeader || b.Uint32(s) != cpMagic {
		return cpCorrupt("header")
	}
	if int(s[4]) != version {
		return cpCorrupt("algorithm version")
	}
	p := 5
	u64 := func() uint64 { v := b.Uint64(s[p:]); p += 8; return v }
	dict, wsize, w, total := u64(), u64(), u64(), u64()
	var old [4]uint64
	for i := range old {
		old[i] = u64()
	}
	lastLen := b.Uint32(s[p:])
	p += 4
	entryOff, blockEnd := u64(), u64()
	last := s[p]
	p++
	bits := u64()
	nl := b.Uint32(s[p:])
	p += 4
	if int64(dict) != d.dict || wsize > dict || w >= wsize ||
		total > math.MaxInt64/2 || entryOff > total || lastLen > maxIncLZMatch || last > 1 ||
		int(nl) != len(d.t.lens) || blockEnd > math.MaxInt64/2 || bits > blockEnd+8 || blockEnd == 0 && bits != 0 ||
		size >= 0 && int64(entryOff) >= size {
		return cpCorrupt("fields")
	}
	linear := wsize < dict
	keep := wsize
	if linear {
		keep = w
		if w != total {
			return cpCorrupt("window position")
		}
	}
	if uint64(len(s)-p) != uint64(nl)+keep {
		return cpCorrupt("length")
	}
	for _, l := range s[p : p+int(nl)] {
		if l > 15 {
			return cpCorrupt("code length")
		}
	}
	copy(d.t.lens[:], s[p:p+int(nl)])
	p += int(nl)
	if linear {
		d.setWindow(int(max(wsize, w+maxIncLZMatch+1)))
	} else {
		d.setWindow(int(dict))
		if uint64(d.wsize) != wsize {
			return cpCorrupt("window size")
		}
	}
	copy(d.win, s[p:])
	d.w, d.total = int(w), int64(total)
	d.oldDist, d.lastLen = old, int(lastLen)
	d.entryStart = d.total - int64(entryOff)
	d.entryEnd = math.MaxInt64
	if size >= 0 {
		d.entryEnd = d.entryStart + size
	}
	d.rpos, d.ridx = d.total, d.w
	d.blockEnd, d.lastBlock = int64(blockEnd)-1, last == 1
	dcodes := dcb
	if d.extraDist {
		dcodes = dcx
	}
	t := d.t
	lens := t.lens[:nc+dcodes+ldc+rc]
	t.ld.build(lens[:nc], mainQuickBits, 9)
	t.dd.build(lens[nc:nc+dcodes], distQuickBits, 6)
	t.ldd.build(lens[nc+dcodes:nc+dcodes+ldc], lowQuickBits, 6)
	t.rd.build(lens[nc+dcodes+ldc:], 8, 6)
	d.haveTables = true
	br := &d.br
	br.base = int64(bits >> 3)
	br.fill()
	br.get(uint(bits & 7))
	return nil
}

// filtersApplied counts the filters every decoder has applied.
var filtersApplied atomic.Int64

// FiltersApplied returns how many filters all decoders have applied
// (tests of the containers check that a stream had filters).
func FiltersApplied() int64 { return filtersApplied.Load() }
