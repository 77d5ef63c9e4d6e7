package zip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// cpArchives are the ZIP archives of the BZip2 and PPMd checkpoint
// tests (testdata/seek/make-bzppmd.sh), of the LZMA ones, and the kind
// they take.
var cpArchives = []struct{ name, kind string }{
	{"bzip2-7zz.zip", "bzip2"}, {"bzip2-infozip.zip", "bzip2"}, {"bzip2-aes.zip", "bzip2"},
	{"ppmd-o8.zip", "ppmd8"}, {"ppmd-o8-aes.zip", "ppmd8"}, {"ppmd-cut.zip", "ppmd8"},
	// LZMA, method 14 (testdata/seek/make-lzmazip.sh)
	{"lzma-zip.zip", "lzma"}, {"lzma-zip-aes.zip", "lzma"},
	// ZipCrypto (testdata/cp/make-zipcrypto.sh)
	{"zc-store.zip", "zipcrypto"}, {"zc-deflate.zip", "deflate+zipcrypto"}, {"zc-bzip2.zip", "bzip2+zipcrypto"},
	{"zc-lzma.zip", "lzma+zipcrypto"}, {"zc-ppmd.zip", "ppmd8+zipcrypto"},
	// XZ, method 95 (testdata/cp/make-xz.sh)
	{"xz-zip.zip", "xz"}, {"xz-zc.zip", "xz+zipcrypto"}, {"xz-aes.zip", "xz"},
	// Zstandard, method 93, several frames, plain and ZipCrypto (made
	// here: zstdFramesZip)
	{"zstd-frames.zip", "zstd"}, {"zstd-zc.zip", "zstd+zipcrypto"},
}

// seekZipPath is where the checkpoint test archive name is: the
// repository's shared seek archives, or this package's testdata/cp.
func seekZipPath(name string) string {
	if strings.HasPrefix(name, "zc-") || strings.HasPrefix(name, "xz-") {
		return "testdata/cp/" + name
	}
	return "../testdata/seek/" + name
}

// seekZipBytes is the checkpoint test archive name.
func seekZipBytes(t testutil.TB, name string) []byte {
	t.Helper()
	switch name {
	case "zstd-frames.zip":
		return zstdFramesZip(t, 40<<10, "")
	case "zstd-zc.zip":
		return zstdFramesZip(t, 40<<10, "seek")
	}
	b, err := os.ReadFile(seekZipPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openSeekZip(t testutil.TB, name string, pol engine.CheckpointPolicy) (*Archive, []byte) {
	t.Helper()
	b := seekZipBytes(t, name)
	a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Password: func(*arc.Entry) (string, error) { return "seek", nil }}))
	if err != nil {
		t.Fatal(err)
	}
	a.caps().SetCheckpoints(pol)
	return a, b
}

// readAllAt reads entry i with Open (verified) and then once through
// OpenAt from 0, which takes the checkpoints.
func readAllAt(t testutil.TB, a *Archive, i int) []byte {
	t.Helper()
	return testutil.FirstPass(t, engineView(a), i)
}

// TestOpenAtCheckpointKinds: BZip2 entries (7zz, Info-ZIP, WinZip AES)
// take checkpoints on a first pass through OpenAt; reads at many
// offsets then resume from one (start > 0, at or before the offset)
// and give the bytes of a full decode; with room for one checkpoint
// they are evicted and reads stay right.
func TestOpenAtCheckpointKinds(t *testing.T) {
	for _, tc := range cpArchives {
		for _, mem := range []int64{1 << 30, -1} {
			t.Run(tc.name, func(t *testing.T) {
				skipSlowKind(t, tc.name)
				a, _ := openSeekZip(t, tc.name, engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30})
				i := entryNamed(t, a, "words.txt")
				want := readAllAt(t, a, i)
				small := mem < 0
				// Room for one of the largest checkpoints (PPMd's grow with
				// the model).
				all := a.cps.Snapshot()
				limit := int64(len(all[len(all)-1].State))
				if small {
					a, _ = openSeekZip(t, tc.name, engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: limit})
					readAllAt(t, a, i)
				}
				st := a.caps().CheckpointStats()
				if !small && st.Count < 2 || small && (st.Evicted == 0 || st.Bytes > limit) {
					t.Fatalf("%+v", st)
				}
				for _, cp := range a.cps.Snapshot() {
					if cp.Kind != tc.kind {
						t.Fatalf("kind %q", cp.Kind)
					}
				}
				resumed := testutil.RandomReads(t, engineView(a), map[int][]byte{i: want}, uint64(len(tc.name)), cpReads(), 5000)
				if !small && resumed < cpReads()/4 || !testing.Short() && resumed == 0 {
					t.Fatalf("%d of %d reads resumed from a checkpoint", resumed, cpReads())
				}
				// To the end from the last checkpoint: the resumed decoder
				// checks its own end (BZip2: the stream CRC).
				cps := a.cps.Snapshot()
				last := cps[len(cps)-1]
				r, start, err := a.caps().OpenAt(i, int64(len(want))-1)
				if err != nil || start != last.Out {
					t.Fatal(start, err)
				}
				rest, err := io.ReadAll(r)
				r.Close()
				if err != nil || !bytes.Equal(rest, want[start:]) {
					t.Fatalf("to the end from %d: %v", start, err)
				}
			})
		}
	}
}

func entryNamed(t testutil.TB, a *Archive, name string) int {
	t.Helper()
	for i, e := range a.Entries() {
		if e.Name == name {
			return i
		}
	}
	t.Fatalf("no %s", name)
	return -1
}

// TestCheckpointKindsPersist: exported checkpoints restore into a
// reopened archive and are used (Verified); one whose state or offset
// was tampered with is rejected on first use and the read stays right.
func TestCheckpointKindsPersist(t *testing.T) {
	for _, tc := range cpArchives {
		t.Run(tc.name, func(t *testing.T) {
			skipSlowKind(t, tc.name)
			pol := engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30}
			a, _ := openSeekZip(t, tc.name, pol)
			i := entryNamed(t, a, "words.txt")
			want := readAllAt(t, a, i)
			cps, err := a.caps().ExportCheckpoints()
			if err != nil || len(cps) < 2 {
				t.Fatal(len(cps), err)
			}
			for _, tamper := range []string{"none", "state", "in"} {
				b, _ := openSeekZip(t, tc.name, pol)
				mod := testutil.Tampered(cps, tamper)
				if err := b.caps().RestoreCheckpoints(mod); err != nil {
					t.Fatal(err)
				}
				for _, cp := range cps {
					testutil.CheckRestored(t, engineView(b), tamper, i, cp.Out, want)
				}
				st := b.caps().CheckpointStats()
				if tamper == "none" && st.Verified != int64(len(cps)) || tamper != "none" && st.Rejected != int64(len(cps)) {
					t.Fatalf("%s: %+v", tamper, st)
				}
			}
			// A checkpoint of another kind or at an offset outside the
			// entry is a stale index.
			b, _ := openSeekZip(t, tc.name, pol)
			testutil.RefuseBad(t, cps[0], b.caps().RestoreCheckpoints,
				func(cp *engine.Checkpoint) { cp.Kind = "deflate" },
				func(cp *engine.Checkpoint) { cp.Out = int64(len(want)) },
				testutil.CutCheck)
		})
	}
}

// TestCheckpointKindsConcurrent: readers resumed from checkpoints in
// parallel, some closed in the middle of a read, give right bytes and
// fail cleanly after Close (run with -race).
func TestCheckpointKindsConcurrent(t *testing.T) {
	for _, tc := range cpArchives {
		if slowKind(tc.name) {
			continue
		}
		a, _ := openSeekZip(t, tc.name, engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30})
		i := entryNamed(t, a, "words.txt")
		want := readAllAt(t, a, i)
		testutil.ConcurrentResumes(t, engineView(a), map[int][]byte{i: want}, 9)
	}
}

// skipSlowKind skips, under -short (and so under the race detector's
// CI pass), the PPMd archives but one: every resume copies and checks a
// model of 1 MiB and decodes PPMd; under -race -short also the ZipCrypto
// PPMd one and the encrypted XZ ones (whose resumes decode up to 2 MiB).
func skipSlowKind(t *testing.T, name string) {
	if slowKind(name) {
		t.Skip("slow PPMd checkpoint archive (the run without -short covers it)")
	}
}

func slowKind(name string) bool {
	return testing.Short() && (strings.HasPrefix(name, "ppmd-") && (name != "ppmd-o8.zip" || raceEnabled) ||
		raceEnabled && (name == "zc-ppmd.zip" || name == "xz-zc.zip" || name == "xz-aes.zip"))
}

// cpReads is the number of random reads of the kind tests.
func cpReads() int {
	if testing.Short() {
		return 12
	}
	return 40
}

// TestZipCryptoCheckpointPassword: a ZipCrypto checkpoint restored into
// the archive opened with another password never yields bytes: its keys
// are sealed with the password's, so it is rejected and the read from
// the start fails on the password.
func TestZipCryptoCheckpointPassword(t *testing.T) {
	pol := engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 30}
	a, b := openSeekZip(t, "zc-deflate.zip", pol)
	i := entryNamed(t, a, "words.txt")
	readAllAt(t, a, i)
	cps, err := a.caps().ExportCheckpoints()
	if err != nil || len(cps) < 2 {
		t.Fatal(len(cps), err)
	}
	for _, pw := range []string{"seel", "x"} {
		w, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Password: func(*arc.Entry) (string, error) { return pw, nil }}))
		if err != nil {
			t.Fatal(err)
		}
		w.caps().SetCheckpoints(pol)
		if err := w.caps().RestoreCheckpoints(cps); err != nil {
			t.Fatal(err)
		}
		got, _, err := testutil.ReadAt(engineView(w), i, cps[1].Out+10, 100)
		if !errors.Is(err, errs.ErrPassword) {
			t.Fatalf("password %q: %d bytes, %v", pw, len(got), err)
		}
		if st := w.caps().CheckpointStats(); st.Verified != 0 {
			t.Fatalf("%+v", st)
		}
	}
}
