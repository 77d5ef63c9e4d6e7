package rar

import (
	"io"

	"github.com/go-unarc/unarc/internal/engine"
)

// engineView is an Archive as the root sees it through internal/engine:
// the capability methods (units, workers, seeking, checkpoints, the
// index, entry checks) are declared on it and forward to the Archive's
// own, so they stay out of the package's API. engine.View returns it for
// an *Archive (a one-pointer struct: no allocation in an interface).
type engineView struct{ *Archive }

func init() {
	engine.RegisterView(func(a any) any {
		if x, ok := a.(*Archive); ok {
			return engineView{x}
		}
		return nil
	})
}

var (
	_ engine.Units               = engineView{}
	_ engine.EntryWorkers        = engineView{}
	_ engine.EntrySeeker         = engineView{}
	_ engine.Checkpointer        = engineView{}
	_ engine.CheckpointReporter  = engineView{}
	_ engine.CheckpointPersister = engineView{}
	_ engine.Indexer             = engineView{}
	_ engine.EntryChecker        = engineView{}
)

func (v engineView) Units() []int { return v.units() }

func (v engineView) SetEntryWorkers(n int) { v.setEntryWorkers(n) }

func (v engineView) OpenAt(i int, off int64) (io.ReadCloser, int64, error) { return v.openAt(i, off) }

func (v engineView) StartAt(i int, off int64) int64 { return v.startAt(i, off) }

func (v engineView) SetCheckpoints(p engine.CheckpointPolicy) { v.setCheckpoints(p) }

func (v engineView) CheckpointStats() engine.CheckpointStats { return v.checkpointStats() }

func (v engineView) ExportCheckpoints() ([]engine.Checkpoint, error) {
	return v.exportCheckpoints(false)
}

func (v engineView) RestoreCheckpoints(cps []engine.Checkpoint) error {
	return v.restoreCheckpoints(cps)
}

func (v engineView) ExportIndex(withKeys bool) ([]byte, error) { return v.exportIndex(withKeys) }

func (v engineView) CheckEntry(i int) error { return v.checkEntry(i) }
