package bzip2

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestParallelAllocs: decoding a multi-block stream on two workers
// allocates no block buffers once warm, even after GCs (a sync.Pool
// loses its items at the second) and with blocks whose compressed sizes
// fall in different size classes (text and random blocks alternating).
// Before, each run took its jobs' buffers piece by piece from the byte
// pools, where the copy of a block changed size class with the block.
func TestParallelAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop items on purpose")
	}
	var raw []byte
	for i := range 6 {
		if i%2 == 0 {
			raw = append(raw, randText(95_000, uint64(i))...)
		} else {
			raw = append(raw, randBytes(95_000, uint64(i))...)
		}
	}
	enc := testEncode(raw, encOpts{level: 1, blockRaw: 95_000})
	z := new(Reader)
	run := func() {
		if err := z.Reset(bytes.NewReader(enc), Workers(2)); err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, z)
		if err != nil || n != int64(len(raw)) {
			t.Fatalf("%d of %d bytes: %v", n, len(raw), err)
		}
		if z.par == nil || z.par.accepted == 0 {
			t.Fatal("no block was decoded in parallel")
		}
		z.Close()
	}
	run()
	const runs = 4
	var worst uint64
	for range runs {
		runtime.GC()
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		run()
		runtime.ReadMemStats(&m1)
		worst = max(worst, m1.TotalAlloc-m0.TotalAlloc)
	}
	t.Logf("at most %d bytes per run", worst)
	if worst > 16<<10 {
		t.Errorf("a run allocated %d bytes after GCs", worst)
	}
}
