package testutil

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// FuzzTimeout is the per-input time a fuzz target allows by default:
// far above what a well-behaved input needs under the fuzz limits, far
// below what would stall a worker unnoticed.
const FuzzTimeout = 2 * time.Second

// FuzzBound guards one fuzz input. It arms a watchdog that crashes the
// process when the input runs longer than d, so the fuzzer records it
// as a failure (Go's fuzzer has no per-input timeout of its own and a
// slow input would just stall the worker). The returned func disarms
// the watchdog and fails t when the input allocated more than maxAlloc
// bytes (0: no allocation check). Call it as
//
//	defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
//
// Under -race the time bound is ten times d. Under a coverage-guided
// run each worker process runs one input at a time, so the allocation
// delta belongs to this input.
func FuzzBound(t testing.TB, d time.Duration, maxAlloc uint64) func() {
	t.Helper()
	var before runtime.MemStats
	if maxAlloc > 0 {
		runtime.ReadMemStats(&before)
	}
	if RaceEnabled {
		// The race detector slows decoding 5-20x; seeds run as plain
		// tests under -race would trip a bound meant for normal builds.
		d *= 10
	}
	timer := time.AfterFunc(d, func() {
		panic(fmt.Sprintf("fuzz input ran longer than %v", d))
	})
	return func() {
		timer.Stop()
		if maxAlloc == 0 {
			return
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > maxAlloc {
			t.Fatalf("fuzz input allocated %d bytes, above the %d-byte bound", n, maxAlloc)
		}
	}
}
