package testutil

import (
	"fmt"
	"io"
	"runtime"
)

// Shared by the allocation-bound tests of the root and the format
// packages: drain an archive's entries or a stream's, and measure what
// a warm run allocates.

// DrainEntries reads every entry of entries that is not a directory to
// its end through open (by index), failing t where one fails. It
// allocates nothing of its own, so allocation tests can run it.
func DrainEntries[E interface{ IsDir() bool }](t TB, entries []E, open func(i int) (io.ReadCloser, error)) {
	t.Helper()
	if err := DiscardEach(len(entries), func(i int) bool { return !entries[i].IsDir() }, open); err != nil {
		t.Fatal(err)
	}
}

// DiscardEach reads the entries 0 to n-1 that keep accepts (nil: all)
// to their end through open, and returns the first error.
func DiscardEach(n int, keep func(i int) bool, open func(i int) (io.ReadCloser, error)) error {
	for i := range n {
		if keep != nil && !keep(i) {
			continue
		}
		rc, err := open(i)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return nil
}

// DrainStream calls next until io.EOF and reads r (the stream's current
// entry) to its end after each, failing t where one fails; it returns
// how many entries it read.
func DrainStream[E any](t TB, next func() (E, error), r io.Reader) int {
	t.Helper()
	n := 0
	for {
		_, err := next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			t.Fatalf("entry %d: %v", n, err)
		}
		n++
	}
}

// WarmAllocs runs run once to warm the pools, collects garbage twice
// (so pooled state a GC drops shows up) and returns the bytes and the
// objects each of runs more runs allocated on average.
func WarmAllocs(runs int, run func()) (bytes, objects uint64) {
	run()
	runtime.GC()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range runs {
		run()
	}
	runtime.ReadMemStats(&m1)
	return (m1.TotalAlloc - m0.TotalAlloc) / uint64(runs), (m1.Mallocs - m0.Mallocs) / uint64(runs)
}
