package reduce

import (
	"errors"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func FuzzReduce(f *testing.F) {
	for factor := 1; factor <= 4; factor++ {
		for _, d := range []string{"", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\x90\x90\x90abc\x90", string(textish(3000, uint64(factor)))} {
			f.Add(reduceData([]byte(d), factor, 32), uint16(len(d)), uint8(factor))
		}
	}
	f.Fuzz(func(t *testing.T, comp []byte, size uint16, factor uint8) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		fa := int(factor%4) + 1
		got, err := decode(comp, int64(size), fa)
		if err == nil && len(got) != int(size) {
			t.Fatalf("%d bytes without error, want %d", len(got), size)
		}
		if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
			t.Fatalf("error %v is neither ErrCorrupt nor ErrTruncated", err)
		}
	})
}
