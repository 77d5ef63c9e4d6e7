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
	// Seconds and nanoseconds apart: UnixNano is undefined outside
	// 1678-2262, and archive times can be anything.
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	ts := []unix.Timespec{{Sec: sec, Nsec: nsec}, {Sec: sec, Nsec: nsec}}
	unix.UtimesNanoAt(int(d.Fd()), path.Base(rel), ts, unix.AT_SYMLINK_NOFOLLOW)
}
