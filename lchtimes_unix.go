//go:build unix

package unarc

import (
	"math"
	"os"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// lchtimes sets the times of rel itself, never following a symlink (a
// link's own times; Root.Chtimes would follow it), through utimensat
// relative to a handle on its parent directory opened through root, so
// the call cannot reach outside root either.
func lchtimes(root *os.Root, rel string, t time.Time) {
	d, err := root.Open(path.Dir(rel))
	if err != nil {
		return
	}
	defer d.Close()
	spec := timespec(t)
	ts := []unix.Timespec{spec, spec}
	unix.UtimesNanoAt(int(d.Fd()), path.Base(rel), ts, unix.AT_SYMLINK_NOFOLLOW)
}

// chtimes sets the times of a file or directory: as lchtimes, which a
// path swapped for a symlink meanwhile does not follow either.
func chtimes(root *os.Root, rel string, t time.Time) { lchtimes(root, rel, t) }

// timespec is t in whole seconds and nanoseconds, never through
// UnixNano, which is undefined outside 1678-2262 (Root.Chtimes restores
// 2500 as 1901): archive times can be anything. A time a 32-bit time_t
// cannot hold is clamped to the nearest one it can; the file system
// clamps what it cannot store (ext4: 1901-2446) in turn.
func timespec(t time.Time) unix.Timespec {
	spec, err := unix.TimeToTimespec(t)
	switch {
	case err == nil:
		return spec
	case t.Unix() < 0:
		return unix.Timespec{Sec: math.MinInt32}
	}
	return unix.Timespec{Sec: math.MaxInt32}
}
