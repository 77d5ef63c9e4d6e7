//go:build linux || darwin || freebsd || dragonfly

package unarc

import "golang.org/x/sys/unix"

// freeSpace returns the bytes an unprivileged process may still write on
// the file system holding path.
func freeSpace(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	return satMul(int64(st.Bavail), max(int64(st.Bsize), 1)), nil
}
