package tar

import "github.com/go-unarc/unarc/internal/engine"

// The capability methods (units, workers, seeking, checkpoints, the
// index, entry checks) are unexported methods of Archive; the root sees
// them through the view engine.View returns for an *Archive, built from
// this table, so they stay out of the package's API.
func init() {
	engine.RegisterMethods(&engine.Methods[*Archive]{
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
