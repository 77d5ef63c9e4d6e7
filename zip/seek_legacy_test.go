package zip

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// legacyCPArchives are the Shrink, Implode and Reduce archives of the checkpoint
// tests: the repository's own (every Implode variant and Reduce factor,
// testdata/zip/make.sh) and, when the shared corpus is there, PKZIP's
// (Shrink entries among them).
func legacyCPArchives(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range []string{"legacy-shrink.zip", "legacy-implode.zip", "legacy-reduce.zip"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "zip", name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	if dir := os.Getenv("UNARC_CORPUS"); dir != "" || testutil.ModuleRoot() != "" {
		if dir == "" {
			dir = filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus")
		}
		for _, name := range []string{"Zip.implode.zip", "Zip.reduce4.zip", "Zip.reduce2.zip"} {
			if b, err := os.ReadFile(filepath.Join(dir, "zip", "sharpcompress", name)); err == nil {
				out[name] = b
			}
		}
	}
	return out
}

// TestLegacyCheckpoints: every Shrink, Implode and Reduce entry takes checkpoints
// on a first pass; reads at offsets all along it give the bytes of a
// full decode, most resumed from one; exported checkpoints restore and
// are used, and tampered ones are rejected with the reads still right;
// readers closed in the middle of a read, in parallel, fail cleanly.
func TestLegacyCheckpoints(t *testing.T) {
	pol := engine.CheckpointPolicy{Interval: 1 << 10, MaxMemory: 1 << 30}
	tested := 0
	defer func() {
		if tested < 10 {
			t.Errorf("%d entries tested", tested)
		}
	}()
	for name, b := range legacyCPArchives(t) {
		open := func() *Archive {
			a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{}))
			if err != nil {
				t.Fatal(err)
			}
			a.caps().SetCheckpoints(pol)
			return a
		}
		a := open()
		for i := range a.Entries() {
			f := &a.files[i]
			kind := cpKindOf(f)
			if kind != "shrink" && kind != "implode" && kind != "reduce" || f.usize < 4<<10 {
				continue
			}
			want := readAllAt(t, a, i)
			tested++
			t.Logf("%s/%s: %s, %d bytes", name, f.Name, kind, len(want))
			resumed := 0
			step := max(int64(len(want))/40, 97)
			if testing.Short() {
				step = max(int64(len(want))/15, 97)
			}
			for off := int64(1); off < int64(len(want)); off += step {
				got, start, err := testutil.ReadAt(engineView(a), i, off, 700)
				if err != nil || !bytes.Equal(got, want[off:min(off+700, int64(len(want)))]) {
					t.Fatalf("%s/%s at %d (from %d): %v", name, f.Name, off, start, err)
				}
				if start > 0 {
					resumed++
				}
			}
			if resumed < 5 {
				t.Fatalf("%s/%s: %d reads resumed", name, f.Name, resumed)
			}
			var cps []engine.Checkpoint
			all, err := a.caps().ExportCheckpoints()
			if err != nil {
				t.Fatal(err)
			}
			for _, cp := range all {
				if cp.Stream == i {
					cps = append(cps, cp)
				}
			}
			for _, tamper := range []bool{false, true} {
				r := open()
				mod := make([]engine.Checkpoint, len(cps))
				for k, cp := range cps {
					cp.State = bytes.Clone(cp.State)
					if tamper {
						cp.State[len(cp.State)-1] ^= 0x41
					}
					mod[k] = cp
				}
				if err := r.caps().RestoreCheckpoints(mod); err != nil {
					t.Fatal(err)
				}
				for _, cp := range cps {
					off := min(cp.Out+50, int64(len(want))-1)
					got, start, err := testutil.ReadAt(engineView(r), i, off, 500)
					if err != nil || !bytes.Equal(got, want[off:off+int64(len(got))]) || !tamper && start != cp.Out {
						t.Fatalf("%s/%s tampered %v at %d (from %d): %v", name, f.Name, tamper, off, start, err)
					}
				}
				if st := r.caps().CheckpointStats(); tamper && st.Rejected != int64(len(cps)) || !tamper && st.Verified != int64(len(cps)) {
					t.Fatalf("%s/%s tampered %v: %+v", name, f.Name, tamper, st)
				}
			}
			var wg sync.WaitGroup
			for g := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, start, err := a.caps().OpenAt(i, int64(len(want))*int64(g+1)/4)
					if err != nil {
						t.Error(err)
						return
					}
					buf := make([]byte, 300)
					n, _ := io.ReadFull(r, buf)
					if !bytes.Equal(buf[:n], want[start:start+int64(n)]) {
						t.Error("bytes differ")
					}
					r.Close()
					if n, err := r.Read(buf); n != 0 || err == nil {
						t.Error("read after Close")
					}
				}()
			}
			wg.Wait()
		}
	}
}
