package xz

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzXZParallel decodes mutated streams with one worker and with two
// (under a 16 MiB memory limit): the outputs and the errors (text and
// class) must be the same.
func FuzzXZParallel(f *testing.F) {
	for _, dir := range []string{mtdir, testdir} {
		for _, name := range testutil.Glob(f, filepath.Join(dir, "*.xz")) {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		serial := decodeWays(b, false, fuzzMaxOut, MaxMemory(16<<20))
		checkClass(t, serial.err)
		sameResult(t, "WriteTo", serial, decodeWays(b, false, fuzzMaxOut, MaxMemory(16<<20), Workers(2)))
	})
}
