package sevenzip

import (
	"errors"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/ppmd"
)

// Checkpoints kept in an index (arc.CheckpointPersister). A restored
// checkpoint is checked field by field against the folder it names
// (kind, offsets, state size) when it is restored, by the decoder
// (lzma.Reader2.ResetAt, lzma.Reader.ResetAt: every state field in
// range) when it is resumed from, and before its first use by decoding
// its CheckLen bytes and comparing their CRC-32 with its Check: a
// checkpoint of another archive, or of this one before its data
// changed, is dropped there and the read decodes from an earlier point.

var _ arc.CheckpointPersister = (*Archive)(nil)

// ExportCheckpoints implements arc.CheckpointPersister.
func (a *Archive) ExportCheckpoints() ([]arc.Checkpoint, error) {
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
		cp.CheckLen = min(arc.CheckSpan, a.si.folders[fi].unpackSizes[sh.lz]-cp.Out)
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
func (a *Archive) cpInput(cp arc.Checkpoint) (cpcache.Input, error) {
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

// RestoreCheckpoints implements arc.CheckpointPersister.
func (a *Archive) RestoreCheckpoints(cps []arc.Checkpoint) error {
	if a.cps.Interval() <= 0 {
		return nil // takes none, uses none
	}
	for _, cp := range cps {
		if err := a.fitCP(&cp); err != nil {
			return err
		}
		a.cps.Restore(cp)
	}
	return nil
}

// fitCP checks a restored checkpoint's fields against its folder and
// sets Entry and EntryOff from its offset.
func (a *Archive) fitCP(cp *arc.Checkpoint) error {
	fi := cp.Stream
	if fi < 0 || fi >= len(a.si.folders) {
		return arc.Stale("checkpoint of a folder the archive does not have")
	}
	f := &a.si.folders[fi]
	sh := shapeOf(f)
	if !sh.ok || sh.lz < 0 {
		return arc.Stale("checkpoint of a folder that takes none")
	}
	c := &f.coders[sh.lz]
	size := f.unpackSizes[sh.lz]
	if sh.bcj2 {
		_, psize := a.packStream(f, sh.pack[0])
		inLen := bcj2InLen(f, sh, 0, psize)
		if cp.Kind != "bcj2" || cp.Out <= 0 || cp.Out >= size || cp.In < 0 || cp.In > inLen ||
			cp.CheckLen != min(arc.CheckSpan, size-cp.Out) {
			return arc.Stale("checkpoint does not fit its folder")
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
		return arc.Stale("checkpoint state does not fit its folder")
	}
	if cp.Kind != cpKindOf(f, sh) || cp.Out <= 0 || cp.Out >= size || cp.In <= 0 || cpInByte(*cp) > inLen ||
		cp.CheckLen != min(arc.CheckSpan, size-cp.Out) {
		return arc.Stale("checkpoint does not fit its folder")
	}
	switch c.method {
	case mCopy:
		if len(lzState) != 0 {
			return arc.Stale("checkpoint state does not fit its folder")
		}
		cp.Entry, cp.EntryOff = a.entryAtOut(fi, cp.Out)
		return nil
	case mBZip2:
		if len(lzState) != bzip2.CheckpointStateSize {
			return arc.Stale("checkpoint state does not fit its folder")
		}
		cp.Entry, cp.EntryOff = a.entryAtOut(fi, cp.Out)
		return nil
	case mDeflate, mDeflate64:
		if len(lzState) < 2 || len(lzState) > 2+64<<10 {
			return arc.Stale("checkpoint state does not fit its folder")
		}
		cp.Entry, cp.EntryOff = a.entryAtOut(fi, cp.Out)
		return nil
	case mPPMD:
		// At most the model's arena and its tables.
		_, mem, err := ppmd.ParseProps7z(c.props)
		if err != nil {
			return arc.Stale("checkpoint of a damaged coder")
		}
		if int64(len(lzState)) > int64(mem)+ppmd.CheckpointOverhead {
			return arc.Stale("checkpoint state larger than its folder's model")
		}
		cp.Entry, cp.EntryOff = a.entryAtOut(fi, cp.Out)
		return nil
	}
	bound, ok := lzmaStateBound(c, size)
	if !ok {
		return arc.Stale("checkpoint of a damaged coder")
	}
	if int64(len(lzState)) > bound {
		return arc.Stale("checkpoint state larger than its folder's window")
	}
	cp.Entry, cp.EntryOff = a.entryAtOut(fi, cp.Out)
	return nil
}

// lzmaStateBound is the largest checkpoint state of LZMA or LZMA2 coder
// c producing size bytes: the window (at most the dictionary, or size
// when smaller), a few coder fields and the probabilities.
func lzmaStateBound(c *coder, size int64) (int64, bool) {
	var dict int64
	lclp := 4
	switch c.method {
	case mLZMA2:
		if len(c.props) != 1 {
			return 0, false
		}
		d, err := lzma.DictSizeLZMA2(c.props[0])
		if err != nil {
			return 0, false
		}
		dict = d
	default:
		p, err := lzma.DecodeProps(c.props)
		if err != nil {
			return 0, false
		}
		dict, lclp = int64(p.DictSize), p.LC+p.LP
	}
	window := (min(max(dict, 4096), size) + 15) &^ 15
	return window + 2*(4096+0x300<<lclp) + 128, true
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
func (a *Archive) checkCP(fi int, sh chainShape, cp arc.Checkpoint, e *arc.Entry, target int64) (bool, *folderReader, error) {
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
func (a *Archive) cpSum(fi int, sh chainShape, cp arc.Checkpoint, e *arc.Entry, keep, rewind bool) (uint32, *folderReader, error) {
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
