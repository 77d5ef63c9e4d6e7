//go:build !unix

package sevenzip

import "time"

// cpuTime is not measured here; cpu-s/op reads 0.
func cpuTime() time.Duration { return 0 }
