package cpio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzLimits keep one input's memory small.
var fuzzLimits = arc.Limits{MaxHeaderMemory: 4 << 20, MaxEntries: 10000, MaxEntrySize: 64 << 20}

// FuzzCpio: both APIs on arbitrary bytes never panic, stay within
// bounded memory and time, and list the same entries.
func FuzzCpio(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "cpio", "*.cpio"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
			f.Add(b[:len(b)/3])
		}
	}
	f.Add(newcLink("a", 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		lim := arc.WithLimits(fuzzLimits)
		sniffHead(data)
		var names []string
		if a, err := Open(bytes.NewReader(data), int64(len(data)), lim); err == nil {
			for i, e := range a.Entries() {
				names = append(names, e.Name)
				if rc, err := a.Open(i); err == nil {
					io.Copy(io.Discard, rc)
					rc.Close()
				}
			}
			a.Warnings()
		}
		z, err := NewReader(bytes.NewReader(data), lim)
		if err != nil {
			return
		}
		defer z.Close()
		for i := 0; ; i++ {
			e, err := z.Next()
			if err != nil {
				return
			}
			// Open leaves out an entry whose data the input cuts; the
			// Reader returns it and fails reading it.
			if i < len(names) && names[i] != e.Name {
				t.Fatalf("Reader entry %d is %q; Open listed %q", i, e.Name, names)
			}
			if _, err := io.Copy(io.Discard, z); err != nil {
				return
			}
		}
	})
}
