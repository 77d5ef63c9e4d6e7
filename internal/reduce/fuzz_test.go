package reduce

import (
	"testing"

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
		testutil.CheckDecodeClass(t, got, int(size), err)
	})
}
