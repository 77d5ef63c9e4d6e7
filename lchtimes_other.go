//go:build !unix

package unarc

import "time"

// lchtimes is a no-op where symlink times cannot be set.
func lchtimes(string, time.Time) {}
