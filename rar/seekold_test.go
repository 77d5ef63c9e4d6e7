package rar

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/engine/conf"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/testutil"
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
	a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(config(t, name, "seek")))
	if err != nil {
		t.Fatal(err)
	}
	a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 4096, MaxMemory: 64 << 20})
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
			st := a.caps().CheckpointStats()
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
			// RAR 1.5's cipher keys stay out of an index; the restores
			// below take them from the unexported list.
			pub, err := a.exportCheckpoints(false)
			if err != nil || (c.ver == 15) != (len(pub) == 0) {
				t.Fatalf("%d exported, %v", len(pub), err)
			}
			cps, err := a.exportCheckpoints(true)
			if err != nil || len(cps) == 0 {
				t.Fatalf("%d exported with keys, %v", len(cps), err)
			}
			closeWhileReading(t, openOldEncrypted(t, c.name, c.ver), want)
			for _, alter := range []bool{false, true} {
				b := openOldEncrypted(t, c.name, c.ver)
				in := make([]engine.Checkpoint, len(cps))
				for k, cp := range cps {
					cp.State = bytes.Clone(cp.State)
					if alter {
						cp.State[k%oldCipher(a.files[cp.Stream])] ^= 0x10
					}
					in[k] = cp
				}
				if err := b.caps().RestoreCheckpoints(in); err != nil {
					t.Fatal(err)
				}
				checkReads(t, b, want, 16, 60)
				st := b.caps().CheckpointStats()
				if !alter && (st.Verified == 0 || st.Rejected != 0) || alter && (st.Rejected == 0 || st.Verified != 0) {
					t.Fatalf("altered %v: %+v", alter, st)
				}
			}
		})
	}
}

// FuzzCheckpointOld restores one checkpoint with an arbitrary state
// (cipher state and decoder state; seeded with real ones) and offsets
// into the RAR 1.5 and 2.0 archives encrypted in code, then reads from
// it: the restore is refused as stale, or the checkpoint is verified or
// rejected on first use, and the read gives the right bytes or an
// error, never a panic, hang or large allocation.
func FuzzCheckpointOld(f *testing.F) {
	archives := map[byte][]byte{}
	want := map[byte][][]byte{}
	for _, c := range []struct {
		name string
		ver  byte
	}{{"rar15/Rar15.rar", 15}, {"rar20/Rar2.rar", 20}} {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", c.name))
		if err != nil {
			f.Fatal(err)
		}
		b := encryptOld(f, raw, c.ver, "seek")
		archives[c.ver] = b
		a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(config(f, c.name, "seek")))
		if err != nil {
			f.Fatal(err)
		}
		a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 64 << 20})
		for i := range a.Entries() {
			rc, _, err := a.caps().OpenAt(i, 0)
			if err != nil {
				f.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				f.Fatal(err)
			}
			want[c.ver] = append(want[c.ver], got)
		}
		cps, err := a.exportCheckpoints(true)
		if err != nil {
			f.Fatal(err)
		}
		for _, cp := range cps {
			f.Add(c.ver, cp.State, int64(cp.Stream), cp.Out, cp.In, cp.Check)
		}
		a.Close()
	}
	f.Fuzz(func(t *testing.T, ver byte, state []byte, stream, out, in int64, check uint32) {
		// Windows of at most 4 MiB, the states, and the reads below.
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		ver = []byte{15, 20}[ver&1]
		b := archives[ver]
		a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(config(t, "old", "seek")))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 64 << 20})
		if stream < 0 || stream >= int64(len(a.files)) {
			return
		}
		cp := engine.Checkpoint{Kind: cpKind(a.files[stream]), Stream: int(stream), Out: out, In: in,
			State: state, Check: check}
		if f := a.files[stream]; f.e.Size > 0 {
			cp.CheckLen = min(engine.CheckSpan, f.e.Size-out)
		}
		// The archive's own input digest, so the mutated state reaches
		// the decoder (an unchanged archive passes the input check).
		if sealed := []engine.Checkpoint{cp}; a.cps.SealInputs(sealed) == nil {
			cp = sealed[0]
		}
		if err := a.caps().RestoreCheckpoints([]engine.Checkpoint{cp}); err != nil {
			return
		}
		i := cp.Entry
		if i < 0 || out+1 >= int64(len(want[ver][i])) {
			return
		}
		got, _, err := readAt(a, i, out+1, 5000)
		if err == nil && !bytes.Equal(got, want[ver][i][out+1:out+1+int64(len(got))]) {
			t.Fatalf("entry %d at %d: wrong bytes", i, out+1)
		}
	})
}
