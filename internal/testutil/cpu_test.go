package testutil

import (
	"runtime"
	"testing"
	"time"
)

// TestCPUTime: busy work shows up in CPUTime, sleeping does not, so a
// bound on CPUSince ignores how loaded the machine is.
func TestCPUTime(t *testing.T) {
	if cpuTime() < 0 {
		t.Skip("no CPU clock on " + runtime.GOOS)
	}
	t0 := CPUTime()
	time.Sleep(200 * time.Millisecond)
	if d := CPUSince(t0); d > 100*time.Millisecond {
		t.Errorf("sleeping 200ms used %v of CPU", d)
	}
	t0 = CPUTime()
	x := 0
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); x++ {
	}
	// The loop ran for 100ms of wall time; on a loaded machine it got
	// less of the CPU, but never nothing.
	if d := CPUSince(t0); d <= 0 || d > 2*time.Second {
		t.Errorf("a 100ms busy loop (%d turns) used %v of CPU", x, d)
	}
}
