package sevenzip

import (
	"errors"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoints kept in an index (engine.CheckpointPersister). A restored
// checkpoint is checked field by field against the folder it names
// (kind, offsets, state size) when it is restored, by the decoder
// (lzma.Reader2.ResetAt, lzma.Reader.ResetAt: every state field in
// range) when it is resumed from, and before its first use by decoding
// its CheckLen bytes and comparing their CRC-32 with its Check: a
// checkpoint of another archive, or of this one before its data
// changed, is dropped there and the read decodes from an earlier point.

// ExportCheckpoints serves engine.CheckpointPersister.
func (c *capable) ExportCheckpoints() ([]engine.Checkpoint, error) {
	a := (*Archive)(c)
	if a.closed.Load() {
		return nil, errClosed
	}
	cps := a.cps.Snapshot()
	out := cps[:0]
	for _, cp := range cps {
		fi := cp.Stream
		if fi < 0 || fi >= len(a.si.folders) {
			continue
		}
		sh := shapeOf(&a.si.folders[fi])
		if !sh.ok || sh.lz < 0 {
			continue
		}
		cp.CheckLen = min(engine.CheckSpan, a.si.folders[fi].unpackSizes[sh.lz]-cp.Out)
		if cp.CheckLen <= 0 {
			continue // at the end: nothing to resume
		}
		sum, _, err := a.cpSum(fi, sh, cp, a.folderEntry(fi), false, false)
		if err != nil {
			return nil, err
		}
		cp.Check = sum
		out = append(out, cp)
	}
	if err := a.cps.SealInputs(out); err != nil {
		return nil, err
	}
	return out, nil
}

// cpInput is what checkpoint cp's state was decoded from: folder
// cp.Stream's pack streams, a single one up to the byte its coder
// resumes at (two AES blocks more), several (BCJ2) whole.
func (a *Archive) cpInput(cp engine.Checkpoint) (cpcache.Input, error) {
	fi := cp.Stream
	if a.si == nil || fi < 0 || fi >= len(a.si.folders) {
		return cpcache.Input{}, errs.Corrupt("7z: checkpoint of folder %d", fi)
	}
	f := &a.si.folders[fi]
	in := cpcache.Input{Key: fi}
	for k := range f.packed {
		off, size := a.packStream(f, k)
		in.Spans = append(in.Spans, cpcache.Span{R: a.ra, Off: off, Len: size})
		in.N += size
	}
	if len(f.packed) == 1 {
		in.N = min(in.N, max(cpInByte(cp), 0)+33)
	}
	return in, nil
}

// RestoreCheckpoints serves engine.CheckpointPersister.
func (c *capable) RestoreCheckpoints(cps []engine.Checkpoint) error {
	a := (*Archive)(c)
	return a.cps.RestoreAll(cps, a.fitCP)
}

// fitCP checks a restored checkpoint's fields against its folder and
// sets Entry and EntryOff from its offset.
func (a *Archive) fitCP(cp *engine.Checkpoint) error {
	fi := cp.Stream
	if fi < 0 || fi >= len(a.si.folders) {
		return engine.Stale("checkpoint of a folder the archive does not have")
	}
	f := &a.si.folders[fi]
	sh := shapeOf(f)
	if !sh.ok || sh.lz < 0 {
		return engine.Stale("checkpoint of a folder that takes none")
	}
	c := &f.coders[sh.lz]
	size := f.unpackSizes[sh.lz]
	if sh.bcj2 {
		_, psize := a.packStream(f, sh.pack[0])
		inLen := bcj2InLen(f, sh, 0, psize)
		if cp.Kind != "bcj2" || cp.Out <= 0 || cp.Out >= size || cp.In < 0 || cp.In > inLen ||
			cp.CheckLen != min(engine.CheckSpan, size-cp.Out) {
			return engine.Stale("checkpoint does not fit its folder")
		}
		if err := fitBCJ2(f, sh, cp); err != nil {
			return err
		}
		cp.Entry, cp.EntryOff = a.entryAtOut(fi, cp.Out)
		return nil
	}
	_, inLen := a.packStart(f)
	if sh.aes >= 0 {
		inLen = f.unpackSizes[sh.aesOut]
	}
	lzState, _, ok := splitState(sh, cp.State)
	if !ok {
		return engine.Stale("checkpoint state does not fit its folder")
	}
	if cp.Kind != cpKindOf(f, sh) || cp.Out <= 0 || cp.Out >= size || cp.In <= 0 || cpInByte(*cp) > inLen ||
		cp.CheckLen != min(engine.CheckSpan, size-cp.Out) {
		return engine.Stale("checkpoint does not fit its folder")
	}
	if err := methodOf(c.method).fitState(c, size, lzState); err != nil {
		return err
	}
	cp.Entry, cp.EntryOff = a.entryAtOut(fi, cp.Out)
	return nil
}

// folderEntry returns an entry of folder fi (for the password prompt).
func (a *Archive) folderEntry(fi int) *arc.Entry {
	for j, k := range a.stream {
		if k >= 0 && int(a.streamFolder[k]) == fi {
			return a.entries[j]
		}
	}
	return nil
}

// checkCP reports whether decoding from restored checkpoint cp gives its
// Check. A missing password is returned (the read asks for one and
// tries again); every other failure means no. When it does, the folder
// reader that checked it is returned too (the caller may go on from
// there or close it): cp.CheckLen bytes after it, or, when target lies
// inside them, at cp with the bytes it decoded to hand out first.
func (a *Archive) checkCP(fi int, sh chainShape, cp engine.Checkpoint, e *arc.Entry, target int64) (bool, *folderReader, error) {
	if cp.CheckLen <= 0 {
		return false, nil, nil
	}
	inside := cp.Out < target && target < cp.Out+cp.CheckLen
	sum, fr, err := a.cpSum(fi, sh, cp, e, true, inside)
	if err != nil {
		if errors.Is(err, errs.ErrPasswordRequired) {
			return false, nil, err
		}
		return false, nil, nil
	}
	if sum != cp.Check {
		fr.Close()
		return false, nil, nil
	}
	return true, fr, nil
}

// cpSum is cp's Check as decoding cp.CheckLen bytes from it gives it;
// with keep, the folder reader that decoded them is returned (else it
// is closed), and with rewind it is put back at cp with the decoded
// bytes to hand out before it decodes more.
func (a *Archive) cpSum(fi int, sh chainShape, cp engine.Checkpoint, e *arc.Entry, keep, rewind bool) (uint32, *folderReader, error) {
	fr, err := a.resumeFolder(fi, sh, cp, e)
	if err != nil {
		return 0, nil, err
	}
	var sum uint32
	var span []byte
	if rewind {
		sum, span, err = cpcache.SumKeep(cp, fr, "7z folder")
	} else {
		sum, err = cpcache.SumFrom(cp, fr, "7z folder")
	}
	if err != nil {
		fr.Close()
		return 0, nil, err
	}
	if !keep {
		fr.Close()
		return sum, nil, nil
	}
	if rewind {
		fr.pre, fr.pos = span, cp.Out
	}
	return sum, fr, nil
}
