//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used. A fuzz
// worker runs one input at a time, so its growth is that input's work
// plus the runtime's (GC).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
