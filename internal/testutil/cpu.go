package testutil

import "time"

var processStart = time.Now()

// CPUTime is the CPU time (user + system, all threads) the process has
// used so far; where the platform does not report it, the wall time since
// the process started. A test that bounds how long some work takes
// compares two readings around it (CPUSince): unlike the wall clock it
// does not grow when other processes load the machine, so the bound still
// catches quadratic code but no longer flakes on a busy machine. Run such
// a test without t.Parallel: the reading is process-wide.
func CPUTime() time.Duration {
	if d := cpuTime(); d >= 0 {
		return d
	}
	return time.Since(processStart)
}

// CPUSince is the CPU time used since the reading t0 of CPUTime.
func CPUSince(t0 time.Duration) time.Duration { return CPUTime() - t0 }
