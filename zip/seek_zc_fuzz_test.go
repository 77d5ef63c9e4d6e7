package zip

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// zcFuzzArchives are the ZipCrypto checkpoint archives the fuzz target
// restores into (PPMd's model states are left to the ppmd package's own
// fuzzing).
var zcFuzzArchives = []string{"zc-store.zip", "zc-deflate.zip", "zc-bzip2.zip", "zc-lzma.zip"}

// FuzzZipCryptoCheckpoint restores mutated ZipCrypto checkpoints (the
// sealed keys, the decoder's state, the offsets) taken along real
// entries into a fresh Archive and reads from them. It must not panic,
// hang or allocate past its bound; what restores either reads the
// archive's bytes (the check caught a bad one) or fails with a sentinel.
func FuzzZipCryptoCheckpoint(f *testing.F) {
	pol := arc.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 8 << 20}
	var wants [][]byte
	for k, name := range zcFuzzArchives {
		a, _ := openSeekZip(f, name, pol)
		i := entryNamed(f, a, "words.txt")
		wants = append(wants, readAllAt(f, a, i))
		cps, err := a.ExportCheckpoints()
		if err != nil || len(cps) == 0 {
			f.Fatal(name, len(cps), err)
		}
		for _, cp := range cps {
			f.Add(uint8(k), cp.State, cp.Out, cp.In, uint32(cp.CheckLen), cp.Check)
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, st []byte, out, in int64, checkLen, check uint32) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 128<<20)()
		n := int(k) % len(zcFuzzArchives)
		a, _ := openSeekZip(t, zcFuzzArchives[n], pol)
		i := entryNamed(t, a, "words.txt")
		cp := arc.Checkpoint{Kind: cpKindOf(&a.files[i]), Stream: i, Out: out, In: in, CheckLen: int64(checkLen), Check: check, State: st}
		if err := a.RestoreCheckpoints([]arc.Checkpoint{cp}); err != nil {
			if !errors.Is(err, arc.ErrStaleIndex) {
				t.Fatalf("restore: %v", err)
			}
			return
		}
		want := wants[n]
		off := min(max(out, 0)+100, int64(len(want))-1)
		got, start, err := readAt(a, i, off, 4096)
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
