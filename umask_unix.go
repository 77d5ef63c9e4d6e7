//go:build unix

package unarc

import (
	"io/fs"
	"sync"
	"syscall"
)

var umaskOnce = sync.OnceValue(func() fs.FileMode {
	// Reading the umask means setting it: set and restore at once, and
	// only once per process, so the window in which a file created by
	// another goroutine would get mode 0 bits unmasked stays tiny.
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m) & fs.ModePerm
})

// processUmask is the umask Extract applies to restored permissions.
func processUmask() fs.FileMode { return umaskOnce() }
