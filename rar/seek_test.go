package rar

import (
	"bytes"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
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
			b := testutil.ReadTestdata(t, "seek", tc.name)
			a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Password: func(*arc.Entry) (string, error) { return "seek", nil }}))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			seen := testutil.CheckOpenAt(t, engineView(a), a.Entries(), func(e *arc.Entry) (string, int64, bool) { return e.Name, e.Size, tc.direct }, 1, 15, 16, 17, 31, 32, 1000)
			if seen < 3 {
				t.Fatalf("%d entries checked", seen)
			}
		})
	}
}
