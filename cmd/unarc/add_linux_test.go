package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAddSpecialAndBadNames: a tree with a named pipe, a socket, a
// device and names that are not UTF-8 (a file, and a directory with a
// file in it) is archived whole, exit 0, and stored as `7zz a` stores
// it: `7zz l -slt` shows the same paths, sizes and attributes.
func TestAddSpecialAndBadNames(t *testing.T) {
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	dir, src := testutil.SpecialTree(t)
	os.MkdirAll(filepath.Join(src, "dir\xe9"), 0o755)
	os.WriteFile(filepath.Join(src, "bad\xff\xfe.txt"), []byte("raw name\n"), 0o644)
	os.WriteFile(filepath.Join(src, "dir\xe9", "inner.txt"), []byte("inside\n"), 0o644)
	ours := filepath.Join(dir, "ours.7z")
	if code, _, errs := runCLI("a", ours, src); code != 0 {
		t.Fatalf("unarc a: exit %d: %s", code, errs)
	}
	testutil.SameAs7zz(t, dir, ours, 7)
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
