// Package engine is what the format packages (rar, zip, sevenzip, tar)
// and the root share to run decoding, and what no user calls: the
// per-archive key-derivation budget, the worker pool of a parallel
// extraction, the settings an arc.Config carries besides the user's, and
// the capabilities a format Archive may implement beyond arc.Archive
// (units, workers, seeking and checkpoints, indexes, warnings, entry
// checks). The root asks for a capability with a type assertion; a
// format that lacks one is used without it.
//
// engine imports nothing of the module but internal/errs, so package
// arc can hold its Settings; internal/engine/conf, above arc, resolves
// arc options into an arc.Config.
package engine

import (
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/errs"
)

// Settings is the part of an arc.Config that the library sets for its
// own packages and a user never does: arc.Config embeds it unexported,
// so its fields read as cfg.Budget and cfg.Workers in the format
// packages, and conf.Budget and conf.Workers set them.
type Settings struct {
	// Budget accounts key-derivation work across the archive; nil charges
	// nothing (format packages used alone).
	Budget *Budget
	// Bounds are the Config's Limits resolved: conf.Apply fills them
	// from arc.Config.Limits (the request, as the user wrote it), and
	// they are what a format applies, read as cfg.Bounds.
	Bounds Limits
	// Workers is how many goroutines a format may use to decode one entry
	// where the stream allows it (BZip2 blocks, LZMA2 chunks that reset
	// the dictionary, zstd frames). 0 or 1 decodes on the calling
	// goroutine only. The extra workers' memory counts against
	// Limits.MaxMemory like the first's; output is byte-identical.
	Workers int
}

// Budget is the per-archive account of work that an attacker can
// multiply across entries: key derivation. One Budget belongs to one
// Open (Archive or Reader) and is safe for concurrent use.
type Budget struct {
	kdf atomic.Int64
	max int64
}

// NewBudget starts an account that allows maxKDFRounds rounds of key
// derivation in all (a resolved Limits.MaxKDFRounds).
func NewBudget(maxKDFRounds int64) *Budget { return &Budget{max: maxKDFRounds} }

// ChargeKDF records rounds of key derivation about to be run (call it
// before deriving, once per distinct key, not for cache hits). It fails
// with errs.ErrLimit when the archive's total would pass MaxKDFRounds.
// A nil Budget charges nothing.
func (b *Budget) ChargeKDF(rounds int64) error {
	if b == nil {
		return nil
	}
	if n := b.kdf.Add(rounds); n > b.max || n < 0 {
		b.kdf.Add(-rounds)
		return errs.Limit("key derivation: %d more rounds would pass MaxKDFRounds (%d)", rounds, b.max)
	}
	return nil
}

// Warner is implemented by a format Archive or Reader that can report
// archive-level conditions that are not errors of any entry: a missing
// end-of-archive record, a locked archive, recovery data, skipped file
// versions. The root exposes them as Archive.Warnings.
type Warner interface {
	Warnings() []error
}

// views are the functions the format packages register (RegisterView):
// each turns its package's Archive into the value that implements the
// capability interfaces, nil for an Archive of another package.
var views []func(a any) any

// Capabilities are what every format's view has (RegisterView): seeking
// inside entries, checkpoints (kept, reported, persisted), the
// persistable index and entry checks. Some views have more, which the
// root asks for one by one: Units and EntryWorkers (formats whose entries
// can share decoder state), SharedWorkers.
type Capabilities interface {
	EntrySeeker
	Checkpointer
	CheckpointReporter
	CheckpointPersister
	Indexer
	EntryChecker
}

// RegisterView registers, from a format package's init, the capability
// view of its Archive type A. The capabilities are plumbing between the
// format and the root, not part of the format's API, so they are not
// methods of A. The package declares an unexported type over the same
// struct,
//
//	type capable Archive
//
// whose exported methods (OpenAt, ExportIndex …) are the
// implementations, and registers the conversion:
//
//	engine.RegisterView(func(a *Archive) engine.Capabilities { return (*capable)(a) })
//
// The methods of an unexported type are not in godoc; the root reaches
// them by type assertions on View's result. view's result type checks
// at compile time that capable has the Capabilities; a check beside each
// further method (var _ engine.Units = (*capable)(nil)) that it has that
// one. View's result has exactly the methods capable declares (tar's has
// no Units).
func RegisterView[A any](view func(a A) Capabilities) {
	views = append(views, func(x any) any {
		if a, ok := x.(A); ok {
			return view(a)
		}
		return nil
	})
}

// View returns what the capability interfaces are asked of for a format
// Archive a: its package's registered view, else a itself.
func View(a any) any {
	for _, v := range views {
		if c := v(a); c != nil {
			return c
		}
	}
	return a
}
