//go:build !unix

package ppmd

import "time"

// cpuNow is not measured here; cpu-s/op reads 0.
func cpuNow() time.Duration { return 0 }
