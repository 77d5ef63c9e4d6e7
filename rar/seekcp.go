package rar

import (
	"io"
	"math"
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// Decoder checkpoints (engine.Checkpointer) of RAR5, RAR 2.9 (RAR 3.x/4.x),
// RAR 2.0 and RAR 1.5 entries. With a policy set, every such compressed entry decoded for an
// OpenAt reader (solid or not; Open takes none) takes a checkpoint of its
// decoder at the first point after each Interval of the entry's output
// where the decoder can take one:
//
//   - RAR5 (Kind "rar5", unpack50.Decoder.Checkpoint): all it produced
//     handed out and no filter pending; the window (up to the
//     dictionary: a checkpoint costs up to the dictionary size, 128 KiB
//     to 4 GiB, fewer bytes while less has been produced), the repeated
//     distances, the code lengths and the bit position;
//   - RAR 2.9 (Kind "rar29", unpack29.Decoder.Checkpoint): all it
//     flushed handed out, in an LZ or a PPMd block; the window (the
//     dictionary rounded up to a power of two, 512 KiB to 4 MiB, less
//     while less has been produced), the LZ state and code lengths, the
//     filter definitions and queued filters, the bit position, and once
//     a PPMd block has been met in the stream its escape byte, model and
//     range decoder (kept in the LZ blocks after it too, since a later
//     PPMd block may continue the model: the used part of the model's
//     memory, which the block header declares, 1 to 256 MiB);
//   - RAR 2.0 (Kind "rar20") and 1.5 ("rar15"), plain or with their own
//     ciphers: between decode passes; the window (the dictionary rounded
//     up, at most 4 MiB), the adaptive state (2.0: code lengths, old
//     distances, audio predictors; 1.5: its character and place tables
//     and statistics), and the bit position; encrypted, the state starts
//     with the cipher's at the 4 KiB mark of the packed data at or
//     before the checkpoint's byte (rarcrypto.Reader15 and Reader20: 1.5's
//     four keys, 2.0's key delta), taken while that mark is among the
//     decryptor's last 32.
//
// A later OpenAt of the same entry resumes from the nearest checkpoint at
// or before its target: the entry's packed data is entered at the
// checkpoint's byte (across volumes), through AES-CBC restarted from the
// ciphertext block before it (RAR5's AES-256 and RAR 3.x's AES-128 alike:
// the IV of a block is the ciphertext before it), and the decoder goes on
// from the kept state; RAR 1.5/2.0-encrypted, it is entered at the
// mark, through the cipher resumed from the state's start, and the bytes
// up to the checkpoint's are dropped. Checkpoints belong to one entry (Stream and Entry
// are its file index); an entry that continues a solid stream also takes
// one at its start, so reading it at an offset before its first Interval
// resumes there instead of decoding the run before it (offset 0 still
// decodes the run: that reader verifies the checksum).

// SetCheckpoints serves engine.Checkpointer.
func (c *capable) SetCheckpoints(p engine.CheckpointPolicy) {
	a := (*Archive)(c)
	a.cps.SetPolicy(p)
	a.cps.SetInput(a.cpInput) // restored ones must match the archive's bytes
}

// CheckpointStats serves engine.CheckpointReporter.
func (c *capable) CheckpointStats() engine.CheckpointStats { return c.cps.Stats() }

// resumed counts OpenAt calls that restarted from a checkpoint (tests).
var resumed atomic.Int64

// cpState is what a checkpoint hook reads of a decoder (every family's
// Decoder alike).
type cpState interface {
	EntryOffset() int64
	InputBits() int64
	CheckpointSize() int
	Checkpoint(dst []byte) []byte
}

// cpDecoder is an unpacker that takes checkpoints and resumes from them:
// every family's adapter is one (family50.go, adapter.go).
type cpDecoder interface {
	unpacker
	onCheckpoint(next int64, fn func(cpState) int64)
	resetAt(src io.Reader, algo int, dict, size int64, state []byte) error
	EntryOffset() int64
}

// cpKind is the Kind of f's checkpoints ("" for none).
func cpKind(f *file) string {
	if fam := familyOf(f.algo); fam != nil {
		return fam.kind
	}
	return ""
}

// cpEntry reports whether f takes checkpoints: compressed RAR5 (plain or
// AES-256), RAR 2.9 (plain or RAR 3.x AES-128), RAR 2.0 and RAR 1.5
// (plain or with the RAR 1.5 or 2.0 cipher, not RAR 1.3's) entries.
func (a *Archive) cpEntry(f *file) bool {
	fam := familyOf(f.algo)
	return fam != nil && fam.checkpoints(f.crypt) && f.method > 0 && f.copyOf < 0 && !f.unknown &&
		f.missing == nil && f.broken == nil && !f.split && f.e.Size > 0 && entryData(f.e)
}

// cipherMarks is a RAR 1.5 or 2.0 decryptor (rarcrypto.Reader15,
// Reader20): the cipher's state at a mark of the packed data.
type cipherMarks interface {
	StateAt(pos int64) (mark int64, state []byte, ok bool)
}

// oldCipher is the length of the cipher state that starts f's
// checkpoints: RAR 1.5 or 2.0 cipher; 0 for none.
func oldCipher(f *file) int {
	switch f.crypt {
	case cryptRAR15:
		return rarcrypto.State15
	case cryptRAR20:
		return rarcrypto.State20
	}
	return 0
}

// watch installs the checkpoint hook on d, which has just been reset
// for file fi (solid: continuing the previous entry's stream, which
// takes a checkpoint at the entry's start too); marks is the RAR 1.5/2.0
// decryptor d reads through, if any.
func (a *Archive) watch(d unpacker, fi int, f *file, solid bool, marks cipherMarks) {
	dc, ok := d.(cpDecoder)
	if !ok || !a.cpEntry(f) {
		return
	}
	kind := cpKind(f)
	iv := a.cps.Interval()
	if iv <= 0 {
		return
	}
	first := iv
	if solid {
		// The entry's start: a read before its first checkpoint then
		// resumes there instead of decoding the run before it.
		first = 0
	}
	dc.onCheckpoint(first, func(dd cpState) int64 {
		off := dd.EntryOffset()
		cell := off / iv * iv
		next := cell + iv
		if next < 0 {
			next = math.MaxInt64
		}
		if a.closed.Load() {
			return math.MaxInt64 // nothing is kept for a closed Archive
		}
		if off == 0 && !solid || a.cps.Has(fi, cell, next) {
			return next
		}
		var pre []byte
		if oldCipher(f) > 0 {
			var ok bool
			if marks == nil {
				return next
			}
			if _, pre, ok = marks.StateAt(dd.InputBits() >> 3); !ok {
				return next // read too far ahead: the next one may do
			}
		}
		n := len(pre) + dd.CheckpointSize()
		if !a.cps.Fits(n) {
			return next
		}
		a.cps.Add(engine.Checkpoint{Kind: kind, Stream: fi, Out: off, In: dd.InputBits(),
			Entry: fi, EntryOff: off, State: dd.Checkpoint(append(make([]byte, 0, n), pre...))})
		return next
	})
}

// peekCP returns the checkpoint of file fi nearest at or before off,
// verified or not, without decoding (StartAt).
func (a *Archive) peekCP(fi int, f *file, off int64) (engine.Checkpoint, bool) {
	if off <= 0 || !a.cpEntry(f) || a.cps.Interval() <= 0 {
		return engine.Checkpoint{}, false
	}
	cp, ok := a.cps.Find(fi, off)
	if !ok || cp.Kind != cpKind(f) || cp.Out < 0 {
		return engine.Checkpoint{}, false
	}
	return cp, true
}

// findCP returns the checkpoint of file fi to resume at for off (a.mu
// held): one restored from an index is verified first (checkCP).
func (a *Archive) findCP(fi int, f *file, off int64) (engine.Checkpoint, bool, error) {
	if off <= 0 || !a.cpEntry(f) || a.cps.Interval() <= 0 {
		return engine.Checkpoint{}, false, nil
	}
	cp, ok, err := a.cps.FindChecked(fi, off, func(cp engine.Checkpoint) (bool, error) { return a.checkCP(fi, cp) })
	if err != nil {
		return engine.Checkpoint{}, false, err
	}
	if !ok || cp.Kind != cpKind(f) || cp.Out < 0 {
		return engine.Checkpoint{}, false, nil
	}
	return cp, true, nil
}

// resume opens file fi from checkpoint cp (a.mu held); with watch, its
// decoder takes checkpoints as it goes (not while a restored checkpoint
// is being verified: none may come from a state not verified).
func (a *Archive) resume(fi int, f *file, cp engine.Checkpoint, watch bool) (io.ReadCloser, error) {
	if err := a.limits.checkSize(f); err != nil {
		return nil, err
	}
	if err := a.limits.checkDict(f); err != nil {
		return nil, err
	}
	if cp.In < 0 || cp.Out > f.e.Size {
		return nil, errs.Corrupt("%s checkpoint out of the entry", cp.Kind)
	}
	r := &atReader{a: a}
	r.parts.reset(a.vols, f.parts)
	at := cp.In >> 3
	var src io.Reader = &r.parts
	state := cp.State
	if n := oldCipher(f); n > 0 {
		if len(state) < n {
			return nil, errs.Corrupt("%s checkpoint without its cipher state", cp.Kind)
		}
		var err error
		if src, err = a.resumeCipher(r, f, at, state[:n]); err != nil {
			return nil, err
		}
		r.guess = true
		state = state[n:]
	} else if f.crypt == cryptNone {
		if err := r.parts.seek(at); err != nil {
			return nil, err
		}
	} else {
		key, iv0, guess, err := a.keys.cbcKey(f)
		if err != nil {
			return nil, err
		}
		r.guess = guess
		if err := r.cbcFrom(at, key, iv0); err != nil {
			r.Close()
			return nil, err
		}
		src = r.crypt
	}
	d, err := newUnpacker(f, a.limits.mem)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.dec = d
	dc, ok := d.(cpDecoder)
	if !ok || cp.Kind != cpKind(f) {
		r.Close()
		return nil, errs.Corrupt("%s checkpoint of a %s entry", cp.Kind, f.e.Method)
	}
	if err := dc.resetAt(src, f.algo, f.dict, f.e.Size, state); err != nil {
		r.Close()
		return nil, mapErr(err, r.guess)
	}
	if got := dc.EntryOffset(); got != cp.Out {
		r.Close()
		return nil, errs.Corrupt("%s checkpoint at %d, not %d", cp.Kind, got, cp.Out)
	}
	if watch {
		marks, _ := src.(cipherMarks)
		a.watch(d, fi, f, false, marks)
	}
	r.lim = io.LimitedReader{R: d, N: f.e.Size - cp.Out}
	resumed.Add(1)
	return r, nil
}

// resumeCipher returns r's packed data from byte at on, deciphered by
// f's RAR 1.5 or 2.0 cipher resumed from st, its state at the mark at or
// before at.
func (a *Archive) resumeCipher(r *atReader, f *file, at int64, st []byte) (io.Reader, error) {
	pw, err := a.keys.entryPassword(f)
	if err != nil {
		return nil, err
	}
	mark := at &^ (rarcrypto.MarkSpan - 1)
	if err := r.parts.seek(mark); err != nil {
		return nil, err
	}
	var rd interface {
		io.Reader
		Resume(pos int64, st []byte) error
	}
	if f.crypt == cryptRAR15 {
		rd = rarcrypto.NewReader15(&r.parts, rarcrypto.NewCipher15(pw))
	} else {
		rd = rarcrypto.NewReader20(&r.parts, rarcrypto.NewCipher20(pw))
	}
	if err := rd.Resume(mark, st); err != nil {
		return nil, err
	}
	if _, err := io.CopyN(io.Discard, rd, at-mark); err != nil {
		return nil, errs.EOF(err, "RAR encrypted data")
	}
	return rd, nil
}
