package unarc

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// A compressed tarball read by a Reader has one checksum for many
// entries (the gzip CRC-32 covers a whole member, an xz check a whole
// block), verified only where the member or block ends: after the last
// entry of an ordinary single-member tarball. An entry's own data gives
// no sign of a flipped byte, so Reader.Extract holds the files of such a
// stream under their temporary names (and hard links to them) until the
// stream has been read to its end, which verifies every check:
//
//   - the stream ends cleanly: the held files are renamed into place, in
//     entry order;
//   - a check fails (ErrChecksum): every held file is removed and its
//     entry fails with that error: the damage is somewhere in their bytes,
//     and the check cannot say where;
//   - the stream breaks otherwise (truncated, a corrupt header or
//     compressed block), or Extract stops before its end (a limit): no
//     check covering the held files ever ran; they decoded whole before
//     the damage and are renamed into place, as GNU tar keeps them, and
//     the damage is reported;
//   - ctx is cancelled: the held files are removed.
//
// At most maxHeld files are held: past that, the oldest is renamed into
// place unverified, and removed again (and its entry failed) if a check
// then fails. Directories and symlinks are not held (a symlink's target
// is in its tar header, which its own checksum covers).

// maxHeld bounds the files held at once (a variable for the tests).
var maxHeld = 1024

// heldFile is a finished file waiting for the stream's check.
type heldFile struct {
	e       *Entry
	tmp     string // where it is, root-relative
	dst     string // where it goes
	replace bool   // x.place's replace
	gone    bool   // a later entry of the same path replaced it
}

// hold keeps the finished file tmp for dst until release.
func (x *extractor) hold(e *Entry, tmp, dst string, replace bool) {
	x.unhold(dst)
	h := &heldFile{e: e, tmp: tmp, dst: dst, replace: replace}
	if x.held == nil {
		x.held = map[string]*heldFile{}
	}
	x.held[dst] = h
	x.holding = append(x.holding, h)
	for len(x.holding) > maxHeld {
		h := x.holding[0]
		x.holding = x.holding[1:]
		if h.gone {
			continue
		}
		delete(x.held, h.dst)
		if x.putHeld(h) {
			x.early = append(x.early, h)
		}
	}
}

// unhold drops the held file for dst, if any: a later entry of the same
// path replaces it, as it would replace a file put in place.
func (x *extractor) unhold(dst string) {
	if h := x.held[dst]; h != nil {
		x.root.Remove(h.tmp)
		h.gone = true
		delete(x.held, dst)
	}
}

// heldTemp returns the temporary name of the held file of entry path
// name (a hard link's target), or "".
func (x *extractor) heldTemp(name string) string {
	if x.held == nil {
		return ""
	}
	rel, err := localName(name)
	if err != nil || rel == "" {
		return ""
	}
	if p, ok := x.placed[rel]; ok {
		rel = p
	}
	if h := x.held[rel]; h != nil {
		return h.tmp
	}
	return ""
}

// putHeld renames a held file into place; false (the entry failed) if
// it could not be.
func (x *extractor) putHeld(h *heldFile) bool {
	if err := x.place(h.tmp, h.dst, h.replace); err != nil {
		delete(x.mine, h.dst)
		x.fail(h.e, err)
		return false
	}
	return true
}

// release ends the holding when the stream ended with err (nil: cleanly,
// every check passed): see the rules above.
func (x *extractor) release(err error) {
	if !x.holdFiles {
		return
	}
	held := x.holding
	x.holding, x.held = nil, nil
	if err == nil || err == io.EOF || !errors.Is(err, errs.ErrChecksum) {
		for _, h := range held {
			if !h.gone {
				x.putHeld(h)
			}
		}
		x.early = nil
		return
	}
	var ee *EntryError
	if errors.As(err, &ee) {
		err = ee.Err // the entry in whose read the check failed fails on its own
	}
	cause := fmt.Errorf("the stream's check that covers this entry failed: %w", err)
	for _, h := range x.early {
		// Put in place unverified: removed if still the file this call
		// wrote there.
		if st, lerr := x.root.Lstat(h.dst); lerr == nil && st.Mode().IsRegular() && x.mine[h.dst] == madeFile {
			x.root.Remove(h.dst)
		}
		delete(x.mine, h.dst)
		x.fail(h.e, cause)
	}
	x.early = nil
	for _, h := range held {
		if h.gone {
			continue
		}
		x.root.Remove(h.tmp)
		delete(x.mine, h.dst)
		x.fail(h.e, cause)
	}
}

// dropHeld removes what is still held when Extract is cancelled (or a
// callback aborted it): nothing unverified is put in place.
func (x *extractor) dropHeld() {
	for _, h := range x.holding {
		if !h.gone {
			x.root.Remove(h.tmp)
		}
	}
	x.holding, x.held = nil, nil
}
