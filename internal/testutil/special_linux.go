package testutil

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// SpecialTree makes a directory with a short name (so a socket's path
// fits in sockaddr_un), removed when t ends, holding src/ with a plain
// file, a named pipe, a socket (where one can be bound) and a character
// device (as root); it returns the directory and src.
func SpecialTree(t testing.TB) (dir, src string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "unarc-sp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src = filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "plain.txt"), []byte("plain\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o640); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(src, "sock")); err == nil {
		t.Cleanup(func() { l.Close() })
	} else {
		t.Logf("no socket: %v", err)
	}
	if err := syscall.Mknod(filepath.Join(src, "null"), syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
		t.Logf("no device (needs root): %v", err)
	}
	return dir, src
}
