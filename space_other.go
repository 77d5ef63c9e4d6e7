//go:build !(linux || darwin || freebsd || dragonfly)

package unarc

import "errors"

// freeSpace cannot be told here: Extract checks no free space.
func freeSpace(string) (int64, error) { return 0, errors.ErrUnsupported }
