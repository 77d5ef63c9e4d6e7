package sevenzip

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/arc"
)

// FuzzOpen feeds arbitrary bytes to Open and reads every entry: no input
// may panic, hang or make the parser allocate by an untrusted count.
func FuzzOpen(f *testing.F) {
	for _, p := range testArchives(f) {
		b, err := os.ReadFile(p)
		if err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := &arc.Config{Limits: arc.Limits{MaxDictionary: 1 << 20, MaxMemory: 16 << 20}}
		a, err := Open(bytes.NewReader(data), int64(len(data)), cfg)
		if err != nil {
			return
		}
		defer a.Close()
		for i := range a.Entries() {
			rc, err := a.Open(i)
			if err != nil {
				continue
			}
			io.CopyN(io.Discard, rc, 1<<20)
			rc.Close()
		}
	})
}
