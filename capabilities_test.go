package unarc

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
)

// TestCapabilitiesOfFormats pins the capabilities each format's view
// (engine.View) offers the root: every format seeks, keeps and persists
// checkpoints, exports an index and checks entries; all but tar have
// units and entry workers; only zip shares a worker pool.
func TestCapabilitiesOfFormats(t *testing.T) {
	all := []string{"EntrySeeker", "Checkpointer", "CheckpointReporter", "CheckpointPersister", "Indexer", "EntryChecker"}
	units := append(slices.Clip(all), "Units", "EntryWorkers")
	for _, c := range []struct {
		file string
		want []string
	}{
		{"parallel/p20-7zz.zip", append(slices.Clip(units), "SharedWorkers")},
		{"parallel/p20-rar5.rar", units},
		{"parallel/p20-folders.7z", units},
		{"tar/gnu.tar", all},
		{"tar/seek.tar.gz", all},
	} {
		a, err := OpenFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range []struct {
			name string
			ok   bool
		}{
			{"EntrySeeker", is[engine.EntrySeeker](a.view)},
			{"Checkpointer", is[engine.Checkpointer](a.view)},
			{"CheckpointReporter", is[engine.CheckpointReporter](a.view)},
			{"CheckpointPersister", is[engine.CheckpointPersister](a.view)},
			{"Indexer", is[engine.Indexer](a.view)},
			{"EntryChecker", is[engine.EntryChecker](a.view)},
			{"Units", is[engine.Units](a.view)},
			{"EntryWorkers", is[engine.EntryWorkers](a.view)},
			{"SharedWorkers", is[engine.SharedWorkers](a.view)},
		} {
			if k.ok {
				got = append(got, k.name)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: capabilities %v, want %v", c.file, got, c.want)
		}
		a.Close()
	}
}

// is reports whether v implements T.
func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}
