package ar

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzAr: both APIs, and the .deb data path, on arbitrary bytes never
// panic and stay within bounded memory and time.
func FuzzAr(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "ar", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && filepath.Ext(p) != ".sh" && len(b) < 8<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		cfg := &arc.Config{Limits: arc.Limits{MaxHeaderMemory: 4 << 20, MaxEntries: 10000, MaxEntrySize: 64 << 20,
			MaxMemory: 16 << 20, MaxDictionary: 8 << 20, MaxTotalSize: 64 << 20, MaxRatio: 1000, RatioFloor: 1 << 20}}
		cfg.DebData = len(data)&1 == 1
		if a, err := Format.Open(bytes.NewReader(data), int64(len(data)), cfg); err == nil {
			for i := range a.Entries() {
				if rc, err := a.Open(i); err == nil {
					io.Copy(io.Discard, rc)
					rc.Close()
				}
			}
			a.Close()
		}
		z, err := Format.NewReader(bytes.NewReader(data), cfg)
		if err != nil {
			return
		}
		defer z.Close()
		for range 10000 {
			if _, err := z.Next(); err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, z); err != nil {
				return
			}
		}
	})
}
