package sevenzip

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// cpFolders are the solid 7z archives of the BZip2 and PPMd checkpoint
// tests (testdata/seek/make-bzppmd.sh) and of the filter chains, and
// the kind they take.
var cpFolders = []struct{ name, kind string }{
	{"bzip2-solid.7z", "bzip2"}, {"bzip2-solid-aes.7z", "bzip2"},
	{"ppmd-solid.7z", "ppmd7"}, {"ppmd-solid-aes.7z", "ppmd7"},
	// a filter after the coder (testdata/seek/make-filter.sh)
	{"bcj-lzma2.7z", "lzma2+bcj"}, {"bcj-lzma2-aes.7z", "lzma2+bcj"},
	{"arm64-lzma.7z", "lzma+arm64"}, {"delta-lzma-aes.7z", "lzma+delta"},
	// Deflate folders (testdata/seek/make-deflate7z.sh)
	{"deflate-solid.7z", "deflate"}, {"deflate-solid-aes.7z", "deflate"},
	{"deflate64-solid.7z", "deflate"}, {"bcj-deflate.7z", "deflate+bcj"},
	// BCJ2 folders and filters over Copy (testdata/seek/make-bcj2.sh)
	{"bcj2-lzma2.7z", "bcj2"}, {"bcj2-lzma.7z", "bcj2"},
	{"bcj2-lzma2-aes.7z", "bcj2"}, {"bcj2-lzma-aes.7z", "bcj2"},
	{"delta-copy.7z", "copy+delta"}, {"bcj-copy-aes.7z", "copy+bcj"},
}

// entryAt reads n bytes at off of entry i through OpenAt.
func entryAt(a *Archive, i int, off int64, n int) ([]byte, int64, error) {
	return testutil.ReadAt(engineView(a), i, off, n)
}

// firstPass reads every entry once through OpenAt from 0 (taking
// checkpoints) and returns their contents from Open.
func firstPass(t testutil.TB, a *Archive) [][]byte {
	t.Helper()
	var want [][]byte
	for i := range a.Entries() {
		want = append(want, testutil.FirstPass(t, engineView(a), i))
	}
	return want
}

// byIndex is want by entry index, as the shared harness takes it.
func byIndex(want [][]byte) map[int][]byte {
	m := map[int][]byte{}
	for i, w := range want {
		m[i] = w
	}
	return m
}

// cpPolicy is the checkpoint policy of the 7z checkpoint tests.
var cpPolicy = engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30}

// exportedCPs opens testdata/seek/name with cpPolicy, reads it through
// (taking checkpoints) and returns it, the entries' contents and its
// exported checkpoints, at least least of them.
func exportedCPs(t testutil.TB, name string, least int) (*Archive, [][]byte, []engine.Checkpoint) {
	t.Helper()
	a := openSeekArchive(t, name)
	a.caps().SetCheckpoints(cpPolicy)
	want := firstPass(t, a)
	cps, err := a.caps().ExportCheckpoints()
	if err != nil || len(cps) < least {
		t.Fatal(len(cps), err)
	}
	return a, want, cps
}

// TestOpenAtCheckpointKinds: solid BZip2 folders (plain and AES) take
// checkpoints on a seekable first pass, in several entries; reads at
// random offsets of every entry resume from them with the bytes of a
// full decode; with room for one they are evicted and reads stay
// right.
func TestOpenAtCheckpointKinds(t *testing.T) {
	for _, tc := range cpFolders {
		for _, small := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				skipSlowKind(t, tc.name)
				a := openSeekArchive(t, tc.name)
				a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30})
				want := firstPass(t, a)
				cps := a.cps.Snapshot()
				limit := int64(len(cps[len(cps)-1].State)) // room for one of the largest
				if small {
					a = openSeekArchive(t, tc.name)
					a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: limit})
					firstPass(t, a)
				}
				st := a.caps().CheckpointStats()
				withCP := map[int]bool{}
				for _, cp := range cps {
					withCP[cp.Entry] = true
					if cp.Kind != tc.kind {
						t.Fatalf("kind %q", cp.Kind)
					}
				}
				if !small && (st.Count < 3 || len(withCP) < 2) || small && (st.Evicted == 0 || st.Bytes > limit) {
					t.Fatalf("%+v over entries %v", st, withCP)
				}
				resumed := testutil.RandomReads(t, engineView(a), byIndex(want), uint64(len(tc.name)), cpReads(), 5000)
				if !small && resumed < cpReads()/5 || !testing.Short() && resumed == 0 {
					t.Fatalf("%d of %d reads resumed", resumed, cpReads())
				}
			})
		}
	}
}

// TestCheckpointKindsPersist: exported checkpoints restore into a
// reopened archive and are used (Verified); tampered ones are rejected
// on first use and reads stay right; ones that cannot fit are a stale
// index.
func TestCheckpointKindsPersist(t *testing.T) {
	for _, tc := range cpFolders {
		t.Run(tc.name, func(t *testing.T) {
			skipSlowKind(t, tc.name)
			pol := cpPolicy
			_, want, cps := exportedCPs(t, tc.name, 2)
			for _, tamper := range []string{"none", "state", "in"} {
				b := openSeekArchive(t, tc.name)
				b.caps().SetCheckpoints(pol)
				mod := testutil.Tampered(cps, tamper)
				if err := b.caps().RestoreCheckpoints(mod); err != nil {
					t.Fatal(err)
				}
				read := cps
				if testing.Short() && raceOn {
					read = sparse(cps, 4) // each first use checks a span
				}
				for _, cp := range read {
					if cp.Entry < 0 || cp.EntryOff+100 >= int64(len(want[cp.Entry])) {
						continue
					}
					testutil.CheckRestored(t, engineView(b), tamper, cp.Entry, cp.EntryOff, want[cp.Entry])
				}
				st := b.caps().CheckpointStats()
				if tamper == "none" && st.Verified == 0 || tamper != "none" && (st.Rejected == 0 || st.Verified != 0) {
					t.Fatalf("%s: %+v", tamper, st)
				}
			}
			b := openSeekArchive(t, tc.name)
			b.caps().SetCheckpoints(pol)
			testutil.RefuseBad(t, cps[0], b.caps().RestoreCheckpoints,
				func(cp *engine.Checkpoint) { cp.Kind = "lzma2" },
				func(cp *engine.Checkpoint) { cp.Out = 1 << 40 },
				func(cp *engine.Checkpoint) { cp.In = 1 << 40 },
				testutil.CutCheck)
		})
	}
}

// TestCheckpointKindsConcurrent: resumed readers in parallel, closed in
// the middle of a read, give right bytes and fail after Close; closing
// the archive under them leaves them failing, not reading freed
// decoders (run with -race).
func TestCheckpointKindsConcurrent(t *testing.T) {
	for _, tc := range cpFolders {
		if slowKind(tc.name) {
			continue
		}
		a := openSeekArchive(t, tc.name)
		a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30})
		want := firstPass(t, a)
		testutil.ConcurrentResumes(t, engineView(a), byIndex(want), 7)
		// Close the archive with a resumed reader open.
		cp := a.cps.Snapshot()[1]
		r, _, err := a.caps().OpenAt(cp.Entry, cp.EntryOff+1)
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		if _, err := io.ReadAll(r); err == nil {
			t.Fatalf("%s: read after the archive's Close succeeded", tc.name)
		}
		r.Close()
	}
}

// skipSlowKind skips, under -short (and so under the race detector's
// CI pass), the PPMd archives but one: every resume copies and checks a
// model of 1 MiB and decodes PPMd; and under -race -short one of the
// two plain BCJ2 archives and one of the two under 7zAES (a resume there
// decodes four streams).
func skipSlowKind(t testutil.TB, name string) {
	if slowKind(name) {
		t.Skip("slow PPMd checkpoint archive (the run without -short covers it)")
	}
}

func slowKind(name string) bool {
	return testing.Short() && strings.HasPrefix(name, "ppmd-") && (name != "ppmd-solid.7z" || raceOn) ||
		testing.Short() && raceOn && (name == "bcj2-lzma2.7z" || name == "bcj2-lzma-aes.7z") // bcj2-lzma.7z and bcj2-lzma2-aes.7z cover BCJ2 there
}

// cpReads is the number of random reads of the kind tests.
func cpReads() int {
	if testing.Short() {
		return 12
	}
	return 40
}

// TestFilterCheckpointTampered: a filter-chain checkpoint whose filter
// state was altered is refused: a wrong position or an impossible
// state is ErrCorrupt on resume and a restored one is rejected; altered
// held-back bytes give other output, caught by the check on first use.
// Reads right at each checkpoint match a full decode.
func TestFilterCheckpointTampered(t *testing.T) {
	for _, name := range []string{"bcj-lzma2.7z", "delta-lzma-aes.7z"} {
		t.Run(name, func(t *testing.T) {
			pol := engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30}
			a := openSeekArchive(t, name)
			a.caps().SetCheckpoints(pol)
			want := firstPass(t, a)
			for _, cp := range a.cps.Snapshot() {
				if cp.Entry < 0 {
					continue
				}
				for _, d := range []int64{-1, 0, 1} {
					off := cp.EntryOff + d
					if off < 0 || off >= int64(len(want[cp.Entry])) {
						continue
					}
					got, _, err := entryAt(a, cp.Entry, off, 300)
					if err != nil || !bytes.Equal(got, want[cp.Entry][off:min(off+300, int64(len(want[cp.Entry])))]) {
						t.Fatalf("entry %d at %d: %v, bytes differ", cp.Entry, off, err)
					}
				}
			}
			cps, err := a.caps().ExportCheckpoints()
			if err != nil || len(cps) < 2 {
				t.Fatal(len(cps), err)
			}
			sh := shapeOf(&a.si.folders[cps[0].Stream])
			var held *engine.Checkpoint
			for i := range cps {
				if _, fs, _ := splitState(sh, cps[i].State); len(fs) > 7 {
					held = &cps[i]
				}
			}
			for _, tamper := range []string{"ip", "mask", "length", "held"} {
				var mod []engine.Checkpoint
				for _, cp := range cps {
					if tamper == "held" && (held == nil || cp.Out != held.Out) {
						continue
					}
					cp.State = bytes.Clone(cp.State)
					switch tamper {
					case "ip":
						cp.State[2+1] ^= 1
					case "mask":
						cp.State[2+5] = 9
					case "length":
						cp.State[0]++
					case "held":
						cp.State[2+7] ^= 0x55
					}
					mod = append(mod, cp)
					if tamper != "held" {
						fr, err := a.resumeFolder(cp.Stream, sh, cp, a.folderEntry(cp.Stream))
						if err == nil {
							fr.Close()
						}
						if !errors.Is(err, errs.ErrCorrupt) {
							t.Fatalf("%s: resumed: %v", tamper, err)
						}
					}
				}
				if len(mod) == 0 {
					if name == "bcj-lzma2.7z" {
						t.Fatal("no checkpoint holds bytes back")
					}
					continue
				}
				b := openSeekArchive(t, name)
				b.caps().SetCheckpoints(pol)
				if err := b.caps().RestoreCheckpoints(mod); err != nil {
					t.Fatalf("%s: %v", tamper, err)
				}
				for _, cp := range mod {
					if cp.Entry < 0 || cp.EntryOff+10 >= int64(len(want[cp.Entry])) {
						continue
					}
					got, _, err := entryAt(b, cp.Entry, cp.EntryOff, 10)
					if err != nil || !bytes.Equal(got, want[cp.Entry][cp.EntryOff:cp.EntryOff+10]) {
						t.Fatalf("%s: entry %d at %d: %v, bytes differ", tamper, cp.Entry, cp.EntryOff, err)
					}
				}
				if st := b.caps().CheckpointStats(); st.Rejected == 0 || st.Verified != 0 {
					t.Fatalf("%s: %+v", tamper, st)
				}
			}
		})
	}
}
