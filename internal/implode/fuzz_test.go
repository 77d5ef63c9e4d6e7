package implode

import (
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

func FuzzImplode(f *testing.F) {
	for i, v := range variants {
		for _, d := range []string{"", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abcabcabcabd", string(textish(3000, uint64(i)))} {
			f.Add(implodeData([]byte(d), v.big, v.lit), uint16(len(d)), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, comp []byte, size uint16, variant uint8) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		got, err := decode(comp, int64(size), variant&1 != 0, variant&2 != 0)
		testutil.CheckDecodeClass(t, got, int(size), err)
	})
}
