package rar

import (
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoints of every decoder family kept in an index
// (engine.CheckpointPersister). A restored one is checked against its entry
// when it is restored (kind, an entry that takes checkpoints, offsets
// inside its output and packed data, a state no larger than its family's
// bound, family.cpStateMax), by the decoder's ResetAt when it is resumed
// from, and before its first use by decoding its CheckLen bytes against
// its Check: one that fails is dropped and the read starts from an
// earlier point.

// ExportCheckpoints serves engine.CheckpointPersister.
//
// A RAR 1.5-encrypted entry's checkpoints start with the cipher's keys,
// which decrypt the rest of the entry without the password, so they stay
// out (derived keys never go into an index unasked; RAR 2.0's cipher
// state is a key difference the ciphertext gives, and may go).
func (c *capable) ExportCheckpoints() ([]engine.Checkpoint, error) {
	return (*Archive)(c).exportCheckpoints(false)
}

// exportCheckpoints is ExportCheckpoints, with RAR 1.5 cipher keys too
// when withKeys15 (the tests restore those).
func (a *Archive) exportCheckpoints(withKeys15 bool) ([]engine.Checkpoint, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return nil, errArchiveClosed
	}
	size := func(cp engine.Checkpoint) int64 {
		if fi := cp.Stream; fi >= 0 && fi < len(a.files) && a.cpEntry(a.files[fi]) && cp.Kind == cpKind(a.files[fi]) &&
			(withKeys15 || a.files[fi].crypt != cryptRAR15) {
			return a.files[fi].e.Size
		}
		return -1
	}
	return a.cps.ExportSealed(size, func(cp engine.Checkpoint) (uint32, error) { return a.cpSum(cp.Stream, cp) })
}

// RestoreCheckpoints serves engine.CheckpointPersister.
func (c *capable) RestoreCheckpoints(cps []engine.Checkpoint) error {
	a := (*Archive)(c)
	return a.cps.RestoreAll(cps, func(cp *engine.Checkpoint) error {
		fi := cp.Stream
		if fi < 0 || fi >= len(a.files) || !a.cpEntry(a.files[fi]) {
			return engine.Stale("checkpoint of an entry that takes none")
		}
		f := a.files[fi]
		var packed int64
		for _, p := range f.parts {
			packed += p.size
		}
		if cp.Kind != cpKind(f) || cp.Out < 0 || cp.Out >= f.e.Size || cp.In < 0 || cp.In>>3 > packed ||
			cp.CheckLen != min(engine.CheckSpan, f.e.Size-cp.Out) || int64(len(cp.State)) > a.cpStateMax(fi, cp.Out, cp.State) {
			return engine.Stale("checkpoint does not fit its entry")
		}
		cp.Entry, cp.EntryOff = fi, cp.Out
		if a.vis != nil {
			cp.Entry = -1
			for j, k := range a.vis {
				if k == fi {
					cp.Entry = j
				}
			}
		}
		return nil
	})
}

// cpStateMax bounds the state of a checkpoint of file fi at entry
// offset out, by its family's rule (family.cpStateMax): the history kept
// is at most the window of the largest dictionary in the solid run so
// far and at most the run's output so far. A solid entry has one at its
// start (Out 0).
func (a *Archive) cpStateMax(fi int, out int64, state []byte) int64 {
	f := a.files[fi]
	var dict, before int64
	for j := a.runStart(fi); j <= fi; j++ {
		g := a.files[j]
		dict = max(dict, g.dict)
		if j < fi {
			before += max(g.e.Size, 0)
		}
	}
	return familyOf(f.algo).cpStateMax(f, dict, before+out, state, a.limits.mem)
}

// cpInput is what checkpoint cp's state was decoded from: the packed
// data of the files of its solid run before its file, and its file's
// up to the byte the decoder resumes at (a cipher block more). Files of
// one run share the Key: their inputs agree where both reach.
func (a *Archive) cpInput(cp engine.Checkpoint) (cpcache.Input, error) {
	fi := cp.Stream
	if fi < 0 || fi >= len(a.files) {
		return cpcache.Input{}, errs.Corrupt("checkpoint of file %d", fi)
	}
	start := a.runStart(fi)
	in := cpcache.Input{Key: start}
	var packed int64
	for j := start; j <= fi; j++ {
		for _, p := range a.files[j].parts {
			in.Spans = append(in.Spans, cpcache.Span{R: a.vols[p.vol].ra, Off: p.off, Len: p.size})
			if j < fi {
				in.N += p.size
			} else {
				packed += p.size
			}
		}
	}
	in.N += min(packed, max(cp.In>>3, 0)+17)
	return in, nil
}

// checkCP reports whether decoding from restored checkpoint cp gives its
// Check (a.mu held; cpcache.Verify).
func (a *Archive) checkCP(fi int, cp engine.Checkpoint) (bool, error) {
	return cpcache.Verify(cp, func(cp engine.Checkpoint) (uint32, error) { return a.cpSum(fi, cp) })
}

// cpSum is cp's Check as decoding cp.CheckLen bytes from it gives it
// (a.mu held).
func (a *Archive) cpSum(fi int, cp engine.Checkpoint) (uint32, error) {
	rc, err := a.resume(fi, a.files[fi], cp, false)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return cpcache.SumFrom(cp, rc, cp.Kind+" data")
}
