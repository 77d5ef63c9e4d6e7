package zip

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// cpFuzzEntries are the entries of the checkpoint kinds this package
// adds (ZipCrypto, XZ, Shrink, Reduce, Implode) the fuzz target
// restores into (PPMd's model states are left to the ppmd package's own
// fuzzing).
var cpFuzzEntries = []struct{ archive, entry string }{
	{"zc-store.zip", "words.txt"}, {"zc-deflate.zip", "words.txt"}, {"zc-bzip2.zip", "words.txt"}, {"zc-lzma.zip", "words.txt"},
	{"xz-zc.zip", "words.txt"}, {"zstd-frames.zip", "words.txt"},
	{"legacy-shrink.zip", "shrink-clears.txt"}, {"legacy-reduce.zip", "reduce3.txt"}, {"legacy-implode.zip", "implode-flags6.txt"},
}

// openCPFuzz opens archive name of cpFuzzEntries with policy pol and
// finds its entry.
func openCPFuzz(t testutil.TB, k int, pol engine.CheckpointPolicy) (*Archive, int) {
	e := cpFuzzEntries[k]
	if strings.HasPrefix(e.archive, "legacy-") {
		b, err := os.ReadFile("../testdata/zip/" + e.archive)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		a.caps().SetCheckpoints(pol)
		return a, entryNamed(t, a, e.entry)
	}
	a, _ := openSeekZip(t, e.archive, pol)
	return a, entryNamed(t, a, e.entry)
}

// FuzzCheckpointRestore restores mutated checkpoints (ZipCrypto's sealed
// keys, the decoder's state, the offsets) taken along real entries into
// a fresh Archive and reads from them. It must not panic, hang or
// allocate past its bound; what restores either reads the archive's
// bytes (the check caught a bad one) or fails with a sentinel.
func FuzzCheckpointRestore(f *testing.F) {
	pol := engine.CheckpointPolicy{Interval: 4 << 10, MaxMemory: 16 << 20}
	var wants [][]byte
	for k := range cpFuzzEntries {
		a, i := openCPFuzz(f, k, pol)
		wants = append(wants, readAllAt(f, a, i))
		cps, err := a.caps().ExportCheckpoints()
		if err != nil || len(cps) == 0 {
			f.Fatal(cpFuzzEntries[k].archive, len(cps), err)
		}
		for _, cp := range cps {
			f.Add(uint8(k), cp.State, cp.Out, cp.In, uint32(cp.CheckLen), cp.Check)
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, st []byte, out, in int64, checkLen, check uint32) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 128<<20)()
		n := int(k) % len(cpFuzzEntries)
		a, i := openCPFuzz(t, n, pol)
		cp := engine.Checkpoint{Kind: cpKindOf(&a.files[i]), Stream: i, Out: out, In: in, CheckLen: int64(checkLen), Check: check, State: st}
		// The archive's own input digest, so the mutated state reaches
		// the decoder (an unchanged archive passes the input check).
		if sealed := []engine.Checkpoint{cp}; a.cps.SealInputs(sealed) == nil {
			cp = sealed[0]
		}
		if err := a.caps().RestoreCheckpoints([]engine.Checkpoint{cp}); err != nil {
			if !errors.Is(err, arc.ErrStaleIndex) {
				t.Fatalf("restore: %v", err)
			}
			return
		}
		want := wants[n]
		off := min(max(out, 0)+100, int64(len(want))-1)
		got, start, err := testutil.ReadAt(engineView(a), i, off, 4096)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		if start == 0 && !bytes.Equal(got, want[off:off+int64(len(got))]) {
			t.Fatal("bytes differ without a checkpoint")
		}
	})
}
