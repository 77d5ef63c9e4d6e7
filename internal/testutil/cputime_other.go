//go:build !unix

package testutil

import "time"

// cpuTime is not available: the watchdog falls back to wall time.
func cpuTime() time.Duration { return -1 }
