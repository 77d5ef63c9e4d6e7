package rar

import (
	"io"
	"math"
	"sync/atomic"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
	"github.com/go-unarc/unarc/rar/internal/unpack50"
)

// RAR5 decoder checkpoints (arc.Checkpointer). With a policy set, every
// RAR5-compressed entry decoded for an OpenAt reader (solid or not; Open
// takes none) takes a checkpoint of its decoder (unpack50.Decoder.Checkpoint)
// at the first point after each Interval of the entry's output where
// the decoder has handed out all it produced and no filter is pending:
// the window (up to the dictionary: a checkpoint costs up to the
// dictionary size, 128 KiB to 4 GiB, fewer bytes while less has been
// produced), the repeated distances, the code lengths and the bit
// position in the entry's packed data. A later OpenAt of the same entry
// resumes from the nearest checkpoint at or before its target: the
// entry's packed data is entered at the checkpoint's byte (across
// volumes), through AES-CBC restarted from the ciphertext block before
// it, and the decoder goes on from the kept state. Checkpoints belong to
// one entry (Stream and Entry are its file index); an entry that
// continues a solid stream also takes one at its start, so reading it at
// an offset before its first Interval resumes there instead of decoding
// the run before it (offset 0 still decodes the run: that reader
// verifies the checksum). RAR 1.5-4 entries take none (see OpenAt).

// SetCheckpoints implements arc.Checkpointer.
func (a *Archive) SetCheckpoints(p arc.CheckpointPolicy) { a.cps.SetPolicy(p) }

// CheckpointStats implements arc.CheckpointReporter.
func (a *Archive) CheckpointStats() arc.CheckpointStats { return a.cps.Stats() }

// resumed counts OpenAt calls that restarted from a checkpoint (tests).
var resumed atomic.Int64

// cpEntry reports whether f takes RAR5 checkpoints.
func (a *Archive) cpEntry(f *file) bool {
	return f.method > 0 && family(f.algo) == fam50 && f.copyOf < 0 && !f.unknown &&
		f.missing == nil && f.broken == nil && !f.split && f.e.Size > 0 && entryData(f.e) &&
		(f.crypt == cryptNone || f.crypt == cryptRAR5)
}

// watch installs the checkpoint hook on d, which has just been reset
// for file fi (solid: continuing the previous entry's stream, which
// takes a checkpoint at the entry's start too).
func (a *Archive) watch(d unpacker, fi int, f *file, solid bool) {
	d5, ok := d.(dec50)
	if !ok || !a.cpEntry(f) {
		return
	}
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
	d5.OnCheckpoint(first, func(dd *unpack50.Decoder) int64 {
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
		n := dd.CheckpointSize()
		if !a.cps.Fits(n) {
			return next
		}
		a.cps.Add(arc.Checkpoint{Kind: "rar5", Stream: fi, Out: off, In: dd.InputBits(),
			Entry: fi, EntryOff: off, State: dd.Checkpoint(make([]byte, 0, n))})
		return next
	})
}

// peekCP returns the checkpoint of file fi nearest at or before off,
// verified or not, without decoding (StartAt).
func (a *Archive) peekCP(fi int, f *file, off int64) (arc.Checkpoint, bool) {
	if off <= 0 || !a.cpEntry(f) || a.cps.Interval() <= 0 {
		return arc.Checkpoint{}, false
	}
	cp, ok := a.cps.Find(fi, off)
	if !ok || cp.Kind != "rar5" || cp.Out < 0 {
		return arc.Checkpoint{}, false
	}
	return cp, true
}

// findCP returns the checkpoint of file fi to resume at for off (a.mu
// held): one restored from an index is verified first (checkCP).
func (a *Archive) findCP(fi int, f *file, off int64) (arc.Checkpoint, bool, error) {
	if off <= 0 || !a.cpEntry(f) || a.cps.Interval() <= 0 {
		return arc.Checkpoint{}, false, nil
	}
	cp, ok, err := a.cps.FindChecked(fi, off, func(cp arc.Checkpoint) (bool, error) { return a.checkCP(fi, cp) })
	if err != nil {
		return arc.Checkpoint{}, false, err
	}
	if !ok || cp.Kind != "rar5" || cp.Out < 0 {
		return arc.Checkpoint{}, false, nil
	}
	return cp, true, nil
}

// resume opens file fi from checkpoint cp (a.mu held); with watch, its
// decoder takes checkpoints as it goes (not while a restored checkpoint
// is being verified: none may come from a state not verified).
func (a *Archive) resume(fi int, f *file, cp arc.Checkpoint, watch bool) (io.ReadCloser, error) {
	if err := a.p.checkSize(f); err != nil {
		return nil, err
	}
	if err := a.p.checkDict(f); err != nil {
		return nil, err
	}
	if cp.In < 0 || cp.Out > f.e.Size {
		return nil, errs.Corrupt("rar5 checkpoint out of the entry")
	}
	r := &cpReader{a: a}
	r.parts.reset(a.vols, f.parts)
	at := cp.In >> 3
	var src io.Reader = &r.parts
	if f.crypt == cryptNone {
		if err := r.parts.seek(at); err != nil {
			return nil, err
		}
	} else {
		key, iv0, guess, err := a.p.cbcKey(f)
		if err != nil {
			return nil, err
		}
		r.guess = guess
		var iv [16]byte
		copy(iv[:], iv0)
		blk := at &^ 15
		if err := r.parts.seek(max(blk-16, 0)); err != nil {
			return nil, err
		}
		if blk > 0 {
			if _, err := io.ReadFull(&r.parts, iv[:]); err != nil {
				return nil, errs.EOF(err, "RAR encrypted data")
			}
		}
		r.crypt = cryptReaders.Get()
		if err := r.crypt.Reset(&r.parts, key, iv[:]); err != nil {
			r.Close()
			return nil, err
		}
		if drop := at - blk; drop > 0 {
			var b [16]byte
			if _, err := io.ReadFull(r.crypt, b[:drop]); err != nil {
				r.Close()
				return nil, mapErr(errs.EOF(err, "RAR encrypted data"), r.guess)
			}
		}
		src = r.crypt
	}
	d, err := a.p.newUnpacker(f)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.dec = d
	v := 0
	if f.algo == 70 {
		v = 1
	}
	if err := d.(dec50).ResetAt(src, v, f.dict, f.e.Size, cp.State); err != nil {
		r.Close()
		return nil, mapErr(err, r.guess)
	}
	if got := d.(dec50).EntryOffset(); got != cp.Out {
		r.Close()
		return nil, errs.Corrupt("rar5 checkpoint at %d, not %d", got, cp.Out)
	}
	if watch {
		a.watch(d, fi, f, false)
	}
	r.lim = io.LimitedReader{R: d, N: f.e.Size - cp.Out}
	resumed.Add(1)
	return r, nil
}

// cpReader reads an entry from a checkpoint; it owns its decoder.
type cpReader struct {
	a     *Archive
	parts partsReader
	crypt *rarcrypto.Reader
	dec   unpacker
	lim   io.LimitedReader
	guess bool
}

func (r *cpReader) Read(p []byte) (int, error) {
	if r.a == nil {
		return 0, errReaderClosed
	}
	if r.a.closed.Load() {
		return 0, errArchiveClosed
	}
	if r.lim.N <= 0 {
		return 0, io.EOF
	}
	n, err := r.lim.Read(p)
	if err != nil && err != io.EOF {
		err = mapErr(err, r.guess)
	}
	return n, err
}

func (r *cpReader) Close() error {
	if r.dec != nil {
		releaseUnpacker(fam50, r.dec)
		r.dec = nil
	}
	if r.crypt != nil {
		r.crypt.Release()
		cryptReaders.Put(r.crypt)
		r.crypt = nil
	}
	r.a = nil
	return nil
}
