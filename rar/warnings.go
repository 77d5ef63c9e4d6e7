package rar

import (
	"errors"
	"fmt"

	"github.com/go-unarc/unarc/internal/errs"
)

// warnings collects archive-level conditions the header reader meets that are
// not errors of any entry (engine.Warner): a missing or cut end-of-archive
// record, a locked archive, recovery data, a listing ended early. Each
// condition is recorded once.
type warnings struct {
	list []error
	seen uint32 // bit per warnKind already recorded
}

type warnKind uint

const (
	warnTruncated      warnKind = iota // end-of-archive record missing or cut
	warnLocked                         // archive locked against changes (-k)
	warnRecovery                       // recovery record present (-rr)
	warnCut                            // the listing stopped at a damaged header
	warnVersions                       // older file versions were not listed
	warnBrokenHeader                   // a file/service header or comment failed its CRC
	warnBrokenRecovery                 // an old recovery record's header failed its CRC (skipped)
)

// add records err under kind unless that kind was recorded before.
func (w *warnings) add(kind warnKind, err error) {
	if w.seen&(1<<kind) != 0 {
		return
	}
	w.seen |= 1 << kind
	w.list = append(w.list, err)
}

// Warnings reports the archive-level conditions met while reading the
// headers (the root's Archive.Warnings): a missing end-of-archive record matches
// errs.ErrTruncated, as does a listing cut short by a truncated header.
// Locked archives and recovery records are reported as plain notes.
func (a *Archive) Warnings() []error {
	w := a.p.warn.list[:len(a.p.warn.list):len(a.p.warn.list)]
	if a.warning != nil && a.p.warn.seen&(1<<warnCut|1<<warnTruncated) == 0 {
		w = append(w, a.warning)
	}
	if a.missingVol != nil {
		w = append(w, a.missingVol)
	}
	if a.versions > 0 {
		w = append(w, fmt.Errorf("%w: %d of them", ErrVersionsSkipped, a.versions))
	}
	return w
}

// Warnings reports the conditions met so far (the root's Reader.Warnings); it is complete
// once Next has returned io.EOF.
func (r *Reader) Warnings() []error {
	w := r.p.warn.list
	if r.skipped > 0 {
		w = append(w[:len(w):len(w)], fmt.Errorf("%w: %d of them", ErrVersionsSkipped, r.skipped))
	}
	return w
}

// Warnings that are notes, not failures: they match no errs sentinel.
var (
	// ErrLocked is the warning of an archive locked against changes (-k).
	ErrLocked = errors.New("rar: archive is locked against changes")
	// ErrRecoveryRecord is the warning of an archive carrying a recovery
	// record (-rr), which this package does not use to repair data.
	ErrRecoveryRecord = errors.New("rar: archive has a recovery record (not used for repair)")
	// ErrVersionsSkipped is the warning of an archive holding older file
	// versions (rar -ver) that were not listed (Config.FileVersions).
	ErrVersionsSkipped = errors.New("rar: older file versions not listed (Config.FileVersions lists them)")
)

// errDataCut is the error of entry data that the input cuts short: the
// data area runs past the end of the volume. It is a fact about the input,
// so a missing password check does not turn it into ErrPassword.
var errDataCut = errs.Truncated("entry data runs past the end of the volume")
