package rar

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
)

// openOldEncrypted is testdata/NAME (a RAR 1.5 or 2.0 archive) with its
// files encrypted by encryptOld under "seek" with the cipher of ver,
// opened with checkpoints every 4 KiB.
func openOldEncrypted(t *testing.T, name string, ver byte) *Archive {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b := encryptOld(t, raw, ver, "seek")
	a, err := Open(bytes.NewReader(b), int64(len(b)), config(t, name, "seek"))
	if err != nil {
		t.Fatal(err)
	}
	a.SetCheckpoints(arc.CheckpointPolicy{Interval: 4096, MaxMemory: 64 << 20})
	t.Cleanup(func() { a.Close() })
	return a
}

// TestSeekOldEncrypted: RAR 1.5 and RAR 2.0 entries encrypted with their
// own ciphers (no tool here writes them: Rar15.rar and Rar2.rar encrypted
// by encryptOld, which TestOldEncryption checks against unrar) take
// checkpoints that start with the cipher's state; random reads resume
// from them and match the sequential read; exported ones restore,
// verify and serve reads; one whose cipher state is altered is rejected
// on first use and the read is still right.
func TestSeekOldEncrypted(t *testing.T) {
	for _, c := range []struct {
		name string
		ver  byte
		kind string
	}{{"rar15/Rar15.rar", 15, "rar15"}, {"rar20/Rar2.rar", 20, "rar20"}} {
		t.Run(c.kind, func(t *testing.T) {
			a := openOldEncrypted(t, c.name, c.ver)
			want := contents(t, a)
			st := a.CheckpointStats()
			for _, cp := range a.cps.Snapshot() {
				if cp.Kind != c.kind || !a.files[cp.Stream].e.Encrypted {
					t.Fatalf("kind %q of %s", cp.Kind, a.files[cp.Stream].e.Name)
				}
			}
			before := resumed.Load()
			fromCP := checkReads(t, a, want, 15, 200)
			if st.Count == 0 || resumed.Load() == before || fromCP == 0 {
				t.Fatalf("%+v: %d reads started at a checkpoint", st, fromCP)
			}
			cps, err := a.ExportCheckpoints()
			if err != nil || len(cps) == 0 {
				t.Fatalf("%d exported, %v", len(cps), err)
			}
			for _, alter := range []bool{false, true} {
				b := openOldEncrypted(t, c.name, c.ver)
				in := make([]arc.Checkpoint, len(cps))
				for k, cp := range cps {
					cp.State = bytes.Clone(cp.State)
					if alter {
						cp.State[k%oldCipher(a.files[cp.Stream])] ^= 0x10
					}
					in[k] = cp
				}
				if err := b.RestoreCheckpoints(in); err != nil {
					t.Fatal(err)
				}
				checkReads(t, b, want, 16, 60)
				st := b.CheckpointStats()
				if !alter && (st.Verified == 0 || st.Rejected != 0) || alter && (st.Rejected == 0 || st.Verified != 0) {
					t.Fatalf("altered %v: %+v", alter, st)
				}
			}
		})
	}
}
