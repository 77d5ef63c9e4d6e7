package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// sltProps maps each path `7zz l -slt` lists to its size and attributes.
func sltProps(t *testing.T, arch string) map[string]string {
	t.Helper()
	out, err := exec.Command("7zz", "l", "-slt", arch).CombinedOutput()
	if err != nil {
		t.Fatalf("7zz l: %v\n%s", err, out)
	}
	_, out, _ = bytes.Cut(out, []byte("----------\n"))
	props := map[string]string{}
	var name string
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Path = "); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(line, "Size = "); ok {
			props[name] += "size " + v + " "
		}
		if v, ok := strings.CutPrefix(line, "Attributes = "); ok {
			props[name] += v
		}
	}
	return props
}

// TestAddSpecialAndBadNames: a tree with a named pipe, a socket, a
// device and names that are not UTF-8 (a file, and a directory with a
// file in it) is archived whole, exit 0, and stored as `7zz a` stores
// it: `7zz l -slt` shows the same paths, sizes and attributes.
func TestAddSpecialAndBadNames(t *testing.T) {
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	// Short, so the socket's path fits in sockaddr_un.
	dir, err := os.MkdirTemp("", "unarc-a")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "dir\xe9"), 0o755)
	os.WriteFile(filepath.Join(src, "plain.txt"), []byte("plain\n"), 0o644)
	os.WriteFile(filepath.Join(src, "bad\xff\xfe.txt"), []byte("raw name\n"), 0o644)
	os.WriteFile(filepath.Join(src, "dir\xe9", "inner.txt"), []byte("inside\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o640); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(src, "sock")); err == nil {
		defer l.Close()
	} else {
		t.Logf("no socket: %v", err)
	}
	if err := syscall.Mknod(filepath.Join(src, "null"), syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
		t.Logf("no device (needs root): %v", err)
	}
	ours := filepath.Join(dir, "ours.7z")
	if code, _, errs := runCLI("a", ours, src); code != 0 {
		t.Fatalf("unarc a: exit %d: %s", code, errs)
	}
	if b, err := exec.Command("7zz", "t", "-bd", ours).CombinedOutput(); err != nil {
		t.Fatalf("7zz t: %v\n%s", err, b)
	}
	ref := filepath.Join(dir, "ref.7z")
	cmd := exec.Command("7zz", "a", "-bd", "-snl", ref, "src")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz a: %v\n%s", err, b)
	}
	want, got := sltProps(t, ref), sltProps(t, ours)
	if len(want) < 7 {
		t.Fatalf("7zz lists %q", want)
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
	// 7zz extracts the raw names back.
	out := filepath.Join(dir, "x")
	if b, err := exec.Command("7zz", "x", "-bd", "-o"+out, ours).CombinedOutput(); err != nil {
		t.Fatalf("7zz x: %v\n%s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(out, "src", "dir\xe9", "inner.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("7zz x: %q %v", b, err)
	}
}

// TestAddChangingFiles: files whose size is not what stat says — a
// /proc file (size 0, content), a sysfs file (size 4096, a short
// content) — and a file root cannot read (a write-only sysctl) are each
// reported, the rest is archived, and unarc a exits 1, as GNU tar does
// for "file shrank"; the archive passes 7zz t.
func TestAddChangingFiles(t *testing.T) {
	grew, shrank, unreadable := "/proc/version", "/sys/kernel/mm/transparent_hugepage/enabled", "/proc/sys/vm/drop_caches"
	for _, p := range []string{grew, shrank, unreadable} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s: %v", p, err)
		}
	}
	if st, _ := os.Stat(grew); st.Size() != 0 {
		t.Skipf("%s has a size", grew)
	}
	if st, _ := os.Stat(shrank); st.Size() != 4096 {
		t.Skipf("%s: size %d", shrank, st.Size())
	}
	if f, err := os.Open(unreadable); err == nil {
		f.Close()
		t.Skipf("%s is readable", unreadable)
	}
	src := makeTree(t)
	arch := filepath.Join(t.TempDir(), "out.7z")
	code, _, errs := runCLI("a", arch, grew, shrank, unreadable, src)
	if code != 1 {
		t.Errorf("exit %d, want 1: %s", code, errs)
	}
	for _, w := range []string{"version: stored its first 0 bytes: the file grew",
		"enabled: stored the ", "the file shrank", "drop_caches: skipped: open: permission denied", "3 files"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	out := filepath.Join(t.TempDir(), "x")
	if code, _, errs := runCLI("x", "-preserve-perms", "-o", out, arch); code != 0 {
		t.Fatalf("x: exit %d: %s", code, errs)
	}
	sameTree(t, src, filepath.Join(out, "src"))
	want, _ := os.ReadFile(shrank)
	if b, err := os.ReadFile(filepath.Join(out, "enabled")); err != nil || !bytes.Equal(b, want) {
		t.Errorf("enabled: %q %v, want %q", b, err, want)
	}
	if _, err := os.Lstat(filepath.Join(out, "drop_caches")); err == nil {
		t.Error("the unreadable file was stored")
	}
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	if b, err := exec.Command("7zz", "t", "-bd", arch).CombinedOutput(); err != nil {
		t.Fatalf("7zz t: %v\n%s", err, b)
	}
}
