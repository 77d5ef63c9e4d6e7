package blake2sp

import (
	"bytes"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

func FuzzBLAKE2sp(f *testing.F) {
	for _, v := range vectors {
		f.Add(pattern(v.n), uint16(v.n/3))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 4<<20+8*uint64(len(data)))()
		want := reference(data)
		if got := Sum256(data); got != want {
			t.Fatalf("Sum256 %x want %x", got, want)
		}
		k := int(split) % (len(data) + 1)
		h := New()
		h.Write(data[:k])
		h.Write(data[k:])
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("split %d: %x want %x", k, got, want)
		}
	})
}
