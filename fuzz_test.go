package unarc_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// addSeeds adds every small archive under testdata/ to the corpus.
func addSeeds(f testutil.F) {
	n := 0
	defer func() {
		if n == 0 {
			f.Fatal("no seeds under testdata")
		}
	}()
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".txt") || strings.Contains(p, "/fuzz/") {
			return nil
		}
		if st, err := d.Info(); err == nil && st.Size() <= 64<<10 {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
				n++
			}
		}
		return nil
	})
}

// No password: key derivation may legally take 2^24 rounds (seconds per
// input), and the format packages fuzz their decryption with cheap KDFs.
// Small limits keep each input fast and its memory within the bound
// below: a fuzzer-made header may ask for a large model, many entries or
// a long output, which is legal but slow.
var fuzzLimits = unarc.WithLimits(unarc.Limits{MaxDictionary: 16 << 20, MaxMemory: 32 << 20,
	MaxHeaderMemory: 16 << 20, MaxEntries: 1 << 16, MaxEntrySize: 4 << 20,
	MaxTotalSize: 8 << 20, MaxRatio: 2000, RatioFloor: 1 << 20})

// fuzzAlloc bounds what one input may allocate.
const fuzzAlloc = 256 << 20

// FuzzOpen feeds arbitrary bytes through format detection, the
// random-access API and every entry's decoder: errors are fine, panics
// and hangs are not.
func FuzzOpen(f *testing.F) {
	if testutil.Short() {
		f.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, fuzzAlloc)()
		a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), fuzzLimits)
		if err != nil {
			return
		}
		defer a.Close()
		for _, e := range a.Entries() {
			rc, err := a.OpenEntry(e)
			if err != nil {
				continue
			}
			io.Copy(io.Discard, rc)
			rc.Close()
		}
	})
}

// FuzzNewReader does the same through the forward-only Reader.
func FuzzNewReader(f *testing.F) {
	if testutil.Short() {
		f.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, fuzzAlloc)()
		r, err := unarc.NewReader(bytes.NewReader(data), fuzzLimits)
		if err != nil {
			return
		}
		defer r.Close()
		for i := 0; i < 10000; i++ {
			if _, err := r.Next(); err != nil {
				return
			}
			io.Copy(io.Discard, r)
		}
	})
}
