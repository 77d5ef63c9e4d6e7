//go:build unix

package sevenzip

import (
	"syscall"
	"time"
)

// childCPU returns the user+system CPU time of waited-for children (a
// reference tool run by a benchmark).
func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
