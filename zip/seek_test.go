package zip

import (
	"bytes"
	"io"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestOpenAtStored: stored entries, plain and WinZip AES, open at the
// offset asked (no decoding or deciphering of what precedes it) and
// give the bytes a sequential read does; ZipCrypto and Deflate entries
// start at 0 (deflate.zip's noise file is stored, so it seeks too).
func TestOpenAtStored(t *testing.T) {
	for _, tc := range []struct {
		name   string
		direct bool
	}{{"store.zip", true}, {"store-aes.zip", true}, {"store-zipcrypto.zip", false}, {"deflate.zip", false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := testutil.ReadTestdata(t, "seek", tc.name)
			a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Password: func(*arc.Entry) (string, error) { return "seek", nil }}))
			if err != nil {
				t.Fatal(err)
			}
			testutil.CheckOpenAt(t, engineView(a), a.Entries(), func(e *arc.Entry) (string, int64, bool) {
				return e.Name, e.Size, tc.direct || tc.name == "deflate.zip" && e.Method == "Store"
			}, 1, 15, 16, 17, 1000)
		})
	}
}

// TestOpenAtDeflateCheckpoint: a first pass through OpenAt takes
// checkpoints at Deflate block boundaries (plain and WinZip AES); later
// OpenAt calls resume from the nearest one at or before the offset
// (start > 0, no earlier than needed) with the right bytes; with a
// cache too small for two, they are evicted and reads stay right.
func TestOpenAtDeflateCheckpoint(t *testing.T) {
	for _, name := range []string{"deflate-words.zip", "deflate-words-aes.zip"} {
		for _, mem := range []int64{1 << 30, 40 << 10} {
			b := testutil.ReadTestdata(t, "seek", name)
			a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Password: func(*arc.Entry) (string, error) { return "seek", nil }}))
			if err != nil {
				t.Fatal(err)
			}
			a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: mem})
			want := testutil.FirstPass(t, engineView(a), 0)
			st := a.caps().CheckpointStats()
			if mem > 1<<20 && st.Count < 4 || mem < 1<<20 && (st.Evicted == 0 || st.Count != 1) {
				t.Fatalf("%s, %d bytes: %+v", name, mem, st)
			}
			resumed := 0
			for off := int64(len(want)) - 1; off > 0; off -= 9973 {
				r, start, err := a.caps().OpenAt(0, off)
				if err != nil {
					t.Fatal(err)
				}
				if start > off {
					t.Fatalf("start %d after %d", start, off)
				}
				if start > 0 {
					resumed++
				}
				got, err := io.ReadAll(r)
				r.Close()
				if err != nil {
					t.Fatalf("from %d: %v", start, err)
				}
				if !bytes.Equal(got, want[start:]) {
					t.Fatalf("%s from checkpoint %d (for %d): bytes differ", name, start, off)
				}
			}
			if mem > 1<<20 && resumed < 10 {
				t.Fatalf("%s: %d reads resumed from a checkpoint", name, resumed)
			}
		}
	}
}
