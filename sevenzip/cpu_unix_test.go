//go:build unix

package sevenzip

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time. On a shared,
// loaded machine wall time swings with the neighbours; CPU time per op
// compares ours with the peer more fairly.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
