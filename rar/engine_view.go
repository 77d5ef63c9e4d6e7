package rar

import "github.com/go-unarc/unarc/internal/engine"

// capable is Archive with the capabilities the root asks for (see engine.RegisterView).
type capable Archive

func init() { engine.RegisterView(func(a *Archive) any { return (*capable)(a) }) }

var (
	_ engine.EntrySeeker         = (*capable)(nil)
	_ engine.Checkpointer        = (*capable)(nil)
	_ engine.CheckpointReporter  = (*capable)(nil)
	_ engine.CheckpointPersister = (*capable)(nil)
	_ engine.Indexer             = (*capable)(nil)
	_ engine.EntryChecker        = (*capable)(nil)
	_ engine.Units               = (*capable)(nil)
	_ engine.EntryWorkers        = (*capable)(nil)
)
