package rar

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

// TestOpenAtStored: stored entries, plain and AES-CBC (RAR5 and RAR4),
// open at the offset asked with the bytes a sequential read gives;
// compressed solid entries start at 0.
func TestOpenAtStored(t *testing.T) {
	for _, tc := range []struct {
		name   string
		direct bool
	}{{"store.rar", true}, {"store-aes.rar", true}, {"store-aes4.rar", true}, {"solid.rar", false}} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile("../testdata/seek/" + tc.name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Password: func(*arc.Entry) (string, error) { return "seek", nil }}))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			seen := 0
			for i, e := range a.Entries() {
				if e.Size < 100 {
					continue
				}
				rc, err := a.Open(i)
				if err != nil {
					t.Fatal(err)
				}
				want, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				for _, off := range []int64{1, 15, 16, 17, 31, 32, 1000, e.Size - 1} {
					r, start, err := a.OpenAt(i, off)
					if err != nil {
						t.Fatal(err)
					}
					if tc.direct && start != off || !tc.direct && start != 0 {
						t.Fatalf("%s at %d: start %d", e.Name, off, start)
					}
					got, err := io.ReadAll(r)
					r.Close()
					if err != nil {
						t.Fatalf("%s at %d: %v", e.Name, off, err)
					}
					if !bytes.Equal(got, want[start:]) {
						t.Fatalf("%s at %d: bytes differ", e.Name, off)
					}
				}
				seen++
			}
			if seen < 3 {
				t.Fatalf("%d entries checked", seen)
			}
		})
	}
}
