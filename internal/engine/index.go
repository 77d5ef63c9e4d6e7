package engine

import "github.com/go-unarc/unarc/internal/errs"

// Indexer is implemented by a format Archive whose listing can be
// exported and reopened later (by its Format's OpenIndex) without
// reading its headers again (the root's Archive.Index and
// WithIndex).
type Indexer interface {
	// ExportIndex returns the format's index payload: what OpenIndex
	// needs to rebuild the Archive (entries, data offsets, coder chains,
	// the volume mapping) and a digest of the archive's header regions,
	// which OpenIndex checks. Derived keys are included only when
	// withKeys is set.
	ExportIndex(withKeys bool) ([]byte, error)
}

// ErrStaleIndex is matched by the error of reopening an archive with an
// index that does not describe it: the archive changed since the index
// was made, it is another archive, or the index is damaged or was
// altered. It also matches errs.ErrCorrupt (its only sentinel). arc and
// the root re-export it.
var ErrStaleIndex error = staleIndex{}

type staleIndex struct{}

func (staleIndex) Error() string { return "index does not match the archive" }
func (staleIndex) Unwrap() error { return errs.ErrCorrupt }

// Stale returns an error matching ErrStaleIndex (and errs.ErrCorrupt)
// that says what did not match.
func Stale(what string) error {
	return &staleErr{what: what}
}

type staleErr struct{ what string }

func (e *staleErr) Error() string { return "index does not match the archive: " + e.what }
func (e *staleErr) Unwrap() error { return ErrStaleIndex }

// EntryChecker is implemented by a format Archive whose listing, opened
// from an index, is not wholly checked against the archive when it
// opens. CheckEntry checks what the index says of entry i (its header:
// name, type, mode, link target) against the archive and fails with an
// error matching ErrStaleIndex when they differ; it returns nil for an
// Archive not opened from an index, and for an entry whose Open checks
// it (the root's Extract opens every regular file it writes). The
// root's Extract calls it before it acts on an entry, so that a stale
// index never creates a directory, link or mode the archive no longer
// holds.
type EntryChecker interface {
	CheckEntry(i int) error
}
