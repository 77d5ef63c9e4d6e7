package rar

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzArchive feeds arbitrary bytes to the header parser, the Archive and
// the Reader: no panic, no hang, only sentinel errors, and bounded memory
// (the limits below keep decoders small).
func FuzzArchive(f *testing.F) {
	if testutil.Short() {
		f.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	seeds := testutil.Glob(f, filepath.Join(testdata, "*.rar"))
	{
		if _, err := os.Stat(filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus")); err == nil {
			more, _ := filepath.Glob(filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus", "*", "*", "*.rar"))
			more2, _ := filepath.Glob(filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus", "*", "*.rar"))
			seeds = append(seeds, append(more, more2...)...)
		}
	}
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil && len(b) <= 64<<10 {
			f.Add(b)
		}
	}
	for _, b := range cornerSeeds(f) {
		f.Add(b)
	}
	kdfMaxLg2 = 16             // keep hostile KDF counts from dominating the run
	sharedKeys = new(sync.Map) // mutated copies of one archive share its keys
	f.Fuzz(func(t *testing.T, data []byte) {
		// Small limits keep every input cheap: 4 MiB windows, 16 MiB of
		// decoder memory, a few thousand entries, 2^20 KDF rounds (the
		// per-derivation cap is 2^16 here) and 64 MiB of output.
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		cfg := &arc.Config{
			Password: func(*arc.Entry) (string, error) { return "test", nil },
			Limits: arc.Limits{MaxDictionary: 1 << 22, MaxMemory: 1 << 24, MaxEntries: 10000,
				MaxHeaderMemory: 16 << 20, MaxKDFRounds: 1 << 20, MaxTotalSize: 64 << 20},
		}
		// Decoding is bounded per input so each run stays short: what
		// matters here is the parser and the chain, not decoder speed.
		budget := int64(4 << 20)
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
		if err == nil {
			for i, e := range a.Entries() {
				if e.Size > 1<<20 || budget <= 0 {
					continue
				}
				if rc, err := a.Open(i); err == nil {
					n, _ := io.CopyN(io.Discard, rc, 1<<20)
					budget -= n + 1<<16
					rc.Close()
				} else if !isSentinel(err) {
					t.Fatalf("Open(%d): non-sentinel error %v", i, err)
				}
			}
			a.Comment()
			a.Close()
		} else if !isSentinel(err) {
			t.Fatalf("Open: non-sentinel error %v", err)
		}
		off, _, err := findMarker(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		r, err := NewReader(bytes.NewReader(data[off:]), conf.From(cfg))
		if err != nil {
			return
		}
		defer r.Close()
		for n := 0; n < 1000; n++ {
			e, err := r.Next()
			if err != nil {
				break
			}
			if e.Size <= 1<<20 && budget > 0 {
				n, _ := io.CopyN(io.Discard, r, 1<<20)
				budget -= n + 1<<16
			}
		}
	})
}
