package testutil

import (
	"flag"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// FuzzTimeout is the per-input time a fuzz target allows by default:
// far above what a well-behaved input needs under the fuzz limits, far
// below what would stall a worker unnoticed.
const FuzzTimeout = 2 * time.Second

// stallFactor bounds the wall time of an input that uses no CPU (a
// deadlock, a blocking read) in multiples of the CPU bound.
const stallFactor = 15

// FuzzBound guards one fuzz input. It arms a watchdog that crashes the
// process when the input runs longer than d, so the fuzzer records it
// as a failure (Go's fuzzer has no per-input timeout of its own and a
// slow input would just stall the worker). Where the process's CPU time
// can be read, "longer" means d of CPU time, or stallFactor × d of wall
// time for an input that blocks: on a loaded machine a worker may get
// a fraction of a core, and a wall-clock bound alone then reports
// inputs that are merely starved. The returned func disarms
// the watchdog and fails t when the input allocated more than maxAlloc
// bytes (0: no allocation check). Call it as
//
//	defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
//
// Under -race the time bound is ten times d. Under a coverage-guided
// run each worker process runs one input at a time, so the allocation
// delta belongs to this input.
func FuzzBound(t TB, d time.Duration, maxAlloc uint64) func() {
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
	start, cpu0 := time.Now(), cpuTime()
	var mu sync.Mutex
	stopped := false
	var timer *time.Timer
	var check func()
	check = func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		wall := time.Since(start)
		if cpu0 < 0 || cpuTime()-cpu0 >= d || wall >= stallFactor*d {
			panic(fmt.Sprintf("fuzz input ran longer than %v (wall %v)", d, wall.Round(time.Millisecond)))
		}
		timer = time.AfterFunc(d/4, check) // starved, not slow: look again
	}
	timer = time.AfterFunc(d, check)
	return func() {
		mu.Lock()
		stopped = true
		timer.Stop()
		mu.Unlock()
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

// TB is what the test helpers need of a test, a benchmark or a fuzz
// target. Unlike testing.TB it can be implemented outside the testing
// package, so helpers written against it also serve fuzz targets built
// for libFuzzer (OSS-Fuzz's go-118-fuzz-build swaps *testing.T and
// *testing.F for its own types). Helpers that a fuzz target calls take
// a TB, never a testing.TB or a *testing.T.
type TB interface {
	Helper()
	Cleanup(func())
	Error(args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Failed() bool
	Log(args ...any)
	Logf(format string, args ...any)
	Name() string
	Skip(args ...any)
	Skipf(format string, args ...any)
	TempDir() string
}

// F is what a fuzz target's seed helpers need of a *testing.F.
type F interface {
	TB
	Add(args ...any)
}

// Short reports testing.Short, and false where the testing flags were
// never registered (a fuzz target built as a libFuzzer binary), where
// testing.Short would panic.
func Short() bool {
	if flag.Lookup("test.short") == nil {
		return false
	}
	return testing.Short()
}
