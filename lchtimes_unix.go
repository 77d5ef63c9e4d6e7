//go:build unix

package unarc

import (
	"time"

	"golang.org/x/sys/unix"
)

// lchtimes sets a symlink's own times (os.Chtimes would follow it).
func lchtimes(name string, t time.Time) {
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	unix.UtimesNanoAt(unix.AT_FDCWD, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}
