package rar

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestConcurrentOpen reads every entry of each testdata archive from
// several goroutines at once (run with -race): non-solid entries decode in
// parallel, solid ones take turns on the shared decoder, and every reader
// either returns the right content or reports that it was superseded.
func TestConcurrentOpen(t *testing.T) {
	checked := 0 // entries with a known sum
	for _, p := range testutil.Glob(t, "../testdata/rar/*.rar") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			continue // encrypted or multi-volume: covered elsewhere
		}
		want := map[int][32]byte{}
		for i := range a.Entries() {
			if rc, err := a.Open(i); err == nil {
				b, err := io.ReadAll(rc)
				rc.Close()
				if err == nil {
					want[i] = sha256.Sum256(b)
					checked++
				}
			}
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range a.Entries() {
					rc, err := a.Open(i)
					if err != nil {
						continue
					}
					b, err := io.ReadAll(rc)
					rc.Close()
					if err == nil && sha256.Sum256(b) != want[i] {
						t.Errorf("%s: entry %d read concurrently differs", filepath.Base(p), i)
					}
				}
			}()
		}
		wg.Wait()
		a.Close()
	}
	if checked == 0 {
		t.Fatal("no entry read")
	}
}
