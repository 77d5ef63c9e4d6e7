package sevenzip

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAddTreeSpecialFiles: named pipes, sockets and character devices
// are stored as `7zz a` stores them (7zz l -slt shows the same path,
// size and attributes), never opened, and the archive passes 7zz t.
// (os.DirFS cannot open names that are not UTF-8; `unarc a` walks with
// its own FS, and TestAddSpecialAndBadNames covers those.)
func TestAddTreeSpecialFiles(t *testing.T) {
	// Short, so the socket's path fits in sockaddr_un.
	dir, err := os.MkdirTemp("", "unarc-sp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	os.WriteFile(filepath.Join(src, "plain.txt"), []byte("plain\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o640); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if l, err := net.Listen("unix", filepath.Join(src, "sock")); err == nil {
		defer l.Close()
	} else {
		t.Logf("no socket: %v", err)
	}
	if err := syscall.Mknod(filepath.Join(src, "null"), syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
		t.Logf("no device (needs root): %v", err)
	}
	var m memFile
	zw, _ := NewWriter(&m)
	done := make(chan error, 1)
	go func() { done <- zw.AddTree(os.DirFS(dir), "src", nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("AddTree: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("AddTree blocks (opened the FIFO?)")
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(m.b), int64(len(m.b)))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	need7zz(t)
	ours := writeTemp(t, m.b)
	if out, err := exec.Command("7zz", "t", "-bd", ours).CombinedOutput(); err != nil {
		t.Fatalf("7zz t: %v\n%s", err, out)
	}
	ref := filepath.Join(dir, "ref.7z")
	cmd := exec.Command("7zz", "a", "-bd", "-snl", ref, "src")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz a: %v\n%s", err, out)
	}
	want, got := sltProps(t, ref), sltProps(t, ours)
	t.Logf("7zz: %q", want)
	if len(want) < 4 {
		t.Fatalf("7zz lists %v", want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%q: %q, 7zz %q", name, got[name], w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%q: not in 7zz's archive", name)
		}
	}
}
