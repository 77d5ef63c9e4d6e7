//go:build !unix

package sevenzip

import "time"

func childCPU() time.Duration { return 0 }
