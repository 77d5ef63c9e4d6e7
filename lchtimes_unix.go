//go:build unix

package unarc

import (
	"os"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// lchtimes sets a symlink's own times (Root.Chtimes would follow it),
// relative to a handle on its parent directory opened through root, so
// the call cannot reach outside root either.
func lchtimes(root *os.Root, rel string, t time.Time) {
	d, err := root.Open(path.Dir(rel))
	if err != nil {
		return
	}
	defer d.Close()
	// Not through UnixNano, which is undefined outside 1678-2262:
	// archive times can be anything. A time the platform cannot hold
	// is left unset.
	spec, err := unix.TimeToTimespec(t)
	if err != nil {
		return
	}
	ts := []unix.Timespec{spec, spec}
	unix.UtimesNanoAt(int(d.Fd()), path.Base(rel), ts, unix.AT_SYMLINK_NOFOLLOW)
}
