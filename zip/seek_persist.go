package zip

import (
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// Checkpoints kept in an index (engine.CheckpointPersister). A restored one
// is checked against its entry when it is restored (kind as the entry's
// method and encryption, Deflate or Deflate64, offsets, state size), by
// the decoder's ResetAt when it is resumed from (deflate, bzip2: a block
// magic at its bit offset, ppmd: the model as a heap, lzma, xz: the
// framing and filters, shrink: every prefix inside the table, implode,
// reduce: the flags and window), and before its first use by decoding
// its CheckLen bytes against its Check; one that fails that is dropped
// and the read starts from an earlier point. A ZipCrypto checkpoint's
// keys are sealed with the password's (seek_zipcrypto.go): the index
// holds no key state in the clear, and one restored under another
// password is rejected.

// ExportCheckpoints serves engine.CheckpointPersister.
func (c *capable) ExportCheckpoints() ([]engine.Checkpoint, error) {
	a := (*Archive)(c)
	size := func(cp engine.Checkpoint) int64 {
		if i := cp.Stream; i >= 0 && i < len(a.files) && cp.Kind == cpKindOf(&a.files[i]) {
			return int64(a.files[i].usize)
		}
		return -1
	}
	return a.cps.ExportSealed(size, func(cp engine.Checkpoint) (uint32, error) { return a.cpSum(cp.Stream, cp) })
}

// RestoreCheckpoints serves engine.CheckpointPersister.
func (c *capable) RestoreCheckpoints(cps []engine.Checkpoint) error {
	a := (*Archive)(c)
	return a.cps.RestoreAll(cps, func(cp *engine.Checkpoint) error {
		i := cp.Stream
		if i < 0 || i >= len(a.files) {
			return engine.Stale("checkpoint of an entry the archive does not have")
		}
		f := &a.files[i]
		usize := int64(f.usize)
		if kind := cpKindOf(f); kind == "" || cp.Kind != kind || cp.Out <= 0 || cp.Out >= usize || cp.In <= 0 || cpInByte(*cp) > int64(f.csize) ||
			cp.CheckLen != min(engine.CheckSpan, usize-cp.Out) || !stateFits(f, cp.State) {
			return engine.Stale("checkpoint does not fit its entry")
		}
		cp.Entry, cp.EntryOff = i, cp.Out
		return nil
	})
}

// stateFits checks the size (and, for Deflate, the flavour) of a
// restored state of entry f; the decoder checks the rest on resuming.
func stateFits(f *file, st []byte) bool {
	if cryptKind(f) == cryptZip {
		// The decoder's state, then the sealed keys (seek_zipcrypto.go).
		if len(st) < zipcrypto.StateLen {
			return false
		}
		st = st[:len(st)-zipcrypto.StateLen]
		if f.method == methodStore {
			return len(st) == 0
		}
	}
	m := methods[f.method]
	return m != nil && m.stateFits != nil && m.stateFits(f, st)
}

// cpInput is what checkpoint cp's state was decoded from: entry
// cp.Stream's data up to the byte the decoder resumes at (its input
// counts after the cipher's header, which cryptOverhead over-covers).
func (a *Archive) cpInput(cp engine.Checkpoint) (cpcache.Input, error) {
	i := cp.Stream
	if i < 0 || i >= len(a.files) {
		return cpcache.Input{}, errs.Corrupt("checkpoint of entry %d", i)
	}
	f := &a.files[i]
	var hdr [localLen]byte
	data, err := a.dataOffset(f, hdr[:])
	if err != nil {
		return cpcache.Input{}, err
	}
	size := int64(f.csize)
	return cpcache.Input{Key: i, Spans: []cpcache.Span{{R: a.ra, Off: data, Len: size}}, N: min(size, cpInByte(cp)+cryptOverhead(f)+1)}, nil
}

// checkCP reports whether decoding from restored checkpoint cp gives its
// Check (cpcache.Verify).
func (a *Archive) checkCP(i int, cp engine.Checkpoint) (bool, error) {
	return cpcache.Verify(cp, func(cp engine.Checkpoint) (uint32, error) { return a.cpSum(i, cp) })
}

// cpSum is cp's Check as decoding cp.CheckLen bytes from it gives it.
func (a *Archive) cpSum(i int, cp engine.Checkpoint) (uint32, error) {
	rs, err := a.resume(i, cp)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	return cpcache.SumFrom(cp, rs, cp.Kind+" stream")
}
