package tar

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzLimits keep one input's memory small: windows, headers, output.
var fuzzLimits = arc.Limits{
	MaxDictionary:   8 << 20,
	MaxMemory:       16 << 20,
	MaxHeaderMemory: 8 << 20,
	MaxEntries:      10000,
	MaxTotalSize:    64 << 20,
	MaxRatio:        1000,
	RatioFloor:      1 << 20,
}

func addSeeds(f testutil.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "tar", pattern))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 && filepath.Ext(p) != ".sh" {
			f.Add(b)
		}
	}
}

// FuzzTar: the detection path and both APIs on arbitrary bytes never
// panic and stay within bounded memory.
//
// An input of odd length is read with Workers 2: the read-ahead ring and
// zstd's concurrent decoder (their goroutines, stop and release paths).
func FuzzTar(f *testing.F) {
	addSeeds(f, "*")
	for _, name := range []string{"small.tar.gz", "text.txt.gz"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "tar", name)); err == nil {
			f.Add(append(b, make([]byte, 1000)...)) // tape-style zero padding after the member
			f.Add(append(b, 0, 0, 0, 'x'))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 512<<20)()
		cfg := &arc.Config{Limits: fuzzLimits, Name: "in.tar.gz"}
		cfg.Workers = 1 + len(data)&1
		sniffBytes(data)
		if a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg)); err == nil {
			ents := a.Entries()
			for i := len(ents) - 1; i >= 0 && i >= len(ents)-8; i-- { // backwards: re-decodes
				if rc, err := a.Open(i); err == nil {
					io.Copy(io.Discard, rc)
					rc.Close()
				}
			}
			a.Close()
		}
		r, err := NewReader(bytes.NewReader(data), conf.From(cfg))
		if err != nil {
			return
		}
		defer r.Close()
		for range 10000 {
			if _, err := r.Next(); err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				return
			}
		}
	})
}

// FuzzLzip: the lzip member framing on arbitrary bytes never panics, and
// what decodes without error is what the trailers promise.
func FuzzLzip(f *testing.F) {
	addSeeds(f, "*.lz")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		z := lzipPool.Get()
		defer func() { z.close(); lzipPool.Put(z) }()
		if err := z.reset(bytes.NewReader(data), 8<<20); err != nil {
			return
		}
		io.Copy(io.Discard, io.LimitReader(z, 64<<20))
	})
}
