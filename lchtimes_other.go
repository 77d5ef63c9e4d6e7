//go:build !unix

package unarc

import (
	"os"
	"time"
)

// lchtimes is a no-op where symlink times cannot be set.
func lchtimes(*os.Root, string, time.Time) {}
