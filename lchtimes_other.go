//go:build !unix

package unarc

import (
	"math"
	"os"
	"time"
)

// lchtimes is a no-op where symlink times cannot be set.
func lchtimes(*os.Root, string, time.Time) {}

// Root.Chtimes goes through UnixNano: the range it can hold.
var (
	minNanoTime = time.Unix(0, math.MinInt64)
	maxNanoTime = time.Unix(0, math.MaxInt64)
)

// chtimes sets the times of a file or directory, clamped to what
// Root.Chtimes can pass on (1678-2262) instead of wrapping around.
func chtimes(root *os.Root, rel string, t time.Time) {
	switch {
	case t.Before(minNanoTime):
		t = minNanoTime
	case t.After(maxNanoTime):
		t = maxNanoTime
	}
	root.Chtimes(rel, t, t)
}
