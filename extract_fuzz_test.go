package unarc_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzExtract extracts arbitrary bytes, through the random-access API and
// the stream, into a directory with a decoy beside it: whatever the
// input, nothing appears outside the destination, nothing it holds is a
// temporary file, and no symlink points outside it.
func FuzzExtract(f *testing.F) {
	addSeeds(f)
	lim := unarc.WithLimits(unarc.Limits{MaxDictionary: 16 << 20, MaxMemory: 32 << 20, MaxEntrySize: 1 << 20,
		MaxTotalSize: 8 << 20, MaxEntries: 1000, MaxNameLength: 1024, MaxPathDepth: 32})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Each input is extracted to disk twice: allow for file-system
		// latency (and the race detector) beyond the decoding budget.
		d := 5 * testutil.FuzzTimeout
		if testutil.RaceEnabled {
			d *= 4
		}
		defer testutil.FuzzBound(t, d, 256<<20)()
		base := t.TempDir()
		dest := filepath.Join(base, "dest")
		check := func(how string) {
			// An Extract refused before writing (declared sizes past
			// the limits) does not even create the destination.
			ents, _ := os.ReadDir(base)
			if len(ents) > 1 || len(ents) == 1 && ents[0].Name() != "dest" {
				t.Fatalf("%s: written beside the destination: %v", how, ents)
			}
			filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if strings.HasPrefix(d.Name(), ".unarc-") {
					t.Fatalf("%s: temporary file left: %s", how, p)
				}
				if d.Type()&fs.ModeSymlink != 0 {
					real, err := filepath.EvalSymlinks(p)
					if err == nil && !strings.HasPrefix(real, dest+string(filepath.Separator)) && real != dest {
						t.Fatalf("%s: symlink %s resolves outside: %s", how, p, real)
					}
				}
				return nil
			})
			os.RemoveAll(dest)
		}
		if a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), lim); err == nil {
			a.Extract(context.Background(), dest)
			a.Close()
			check("Archive")
		}
		if r, err := unarc.NewReader(bytes.NewReader(data), lim); err == nil {
			r.Extract(context.Background(), dest)
			r.Close()
			check("Reader")
		}
	})
}
