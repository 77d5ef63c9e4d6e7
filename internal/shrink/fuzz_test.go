package shrink

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func FuzzShrink(f *testing.F) {
	for _, every := range []int{0, 5} {
		for _, d := range []string{"", "a", "aaaaaaaaaaaaaaaa", "abracadabra abracadabra", string(textish(5000, 9))} {
			comp, _, _ := shrinkData([]byte(d), every)
			f.Add(comp, uint16(len(d)))
		}
	}
	f.Fuzz(func(t *testing.T, comp []byte, size uint16) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		z := NewReader(bytes.NewReader(comp), int64(size))
		got, err := io.ReadAll(z)
		z.Close()
		if err == nil && len(got) != int(size) {
			t.Fatalf("%d bytes without error, want %d", len(got), size)
		}
		if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
			t.Fatalf("error %v is neither ErrCorrupt nor ErrTruncated", err)
		}
	})
}
