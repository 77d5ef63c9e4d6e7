package zip

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/arc"
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
			b, err := os.ReadFile("../testdata/seek/" + tc.name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Open(bytes.NewReader(b), int64(len(b)), &arc.Config{Password: func(*arc.Entry) (string, error) { return "seek", nil }})
			if err != nil {
				t.Fatal(err)
			}
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
				for _, off := range []int64{1, 15, 16, 17, 1000, e.Size - 1} {
					r, start, err := a.OpenAt(i, off)
					if err != nil {
						t.Fatal(err)
					}
					direct := tc.direct || tc.name == "deflate.zip" && e.Method == "Store"
					if direct && start != off || !direct && start != 0 {
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
			}
		})
	}
}
