//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// linkID identifies a regular file with more than one name (device and
// inode), so a tarball stores its later names as hard links, as GNU tar
// and bsdtar do; ok is false for a file with one name.
func linkID(info fs.FileInfo) (id [2]uint64, ok bool) {
	st, _ := info.Sys().(*syscall.Stat_t)
	if st == nil || st.Nlink < 2 || !info.Mode().IsRegular() {
		return id, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
