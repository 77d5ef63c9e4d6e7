package sevenzip

import "github.com/go-unarc/unarc/internal/engine"

// The capability methods (units, workers, seeking, checkpoints, the
// index, entry checks) are unexported methods of Archive; the root sees
// them through the view engine.View returns for an *Archive, built from
// this table, so they stay out of the package's API. The four formats'
// tables look alike on purpose: Go reaches no other package's unexported
// methods, so each format names its own here (the forwarding is engine's).
func init() {
	engine.RegisterMethods(&engine.Methods[*Archive]{
		Units:              (*Archive).units,
		SetEntryWorkers:    (*Archive).setEntryWorkers,
		OpenAt:             (*Archive).openAt,
		StartAt:            (*Archive).startAt,
		SetCheckpoints:     (*Archive).setCheckpoints,
		CheckpointStats:    (*Archive).checkpointStats,
		ExportCheckpoints:  (*Archive).exportCheckpoints,
		RestoreCheckpoints: (*Archive).restoreCheckpoints,
		ExportIndex:        (*Archive).exportIndex,
		CheckEntry:         (*Archive).checkEntry,
	})
}
