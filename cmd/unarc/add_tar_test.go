package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestAddTar: `unarc a` writes a tarball when the name says so (or -t
// does), and unarc x and GNU tar extract the tree as it was.
func TestAddTar(t *testing.T) {
	src := makeTree(t)
	if err := os.Link(filepath.Join(src, "a.txt"), filepath.Join(src, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, t string }{
		{"out.tar", ""}, {"out.tgz", ""}, {"out.tar.zst", ""}, {"out.tar.xz", ""}, {"out.tlz", ""},
		{"out.bin", "tar.xz"}, {"out.tar.gz", "tar"},
	} {
		t.Run(c.name+c.t, func(t *testing.T) {
			dir := t.TempDir()
			arch := filepath.Join(dir, c.name)
			args := []string{"a", "-l", "1"}
			if c.t != "" {
				args = append(args, "-t", c.t)
			}
			if code, _, errs := runCLI(append(args, arch, src)...); code != 0 {
				t.Fatalf("unarc a: exit %d: %s", code, errs)
			}
			out := filepath.Join(dir, "x")
			if code, _, errs := runCLI("x", "-preserve-perms", "-o", out, arch); code != 0 {
				t.Fatalf("unarc x: exit %d: %s", code, errs)
			}
			sameTree(t, filepath.Dir(src), out)
			if _, err := exec.LookPath("tar"); err != nil {
				t.Skip("tar not installed")
			}
			outTar := filepath.Join(dir, "xt")
			os.Mkdir(outTar, 0o755)
			if b, err := exec.Command("tar", "-xf", arch, "-C", outTar).CombinedOutput(); err != nil {
				t.Fatalf("tar -x: %v\n%s", err, b)
			}
			sameTree(t, filepath.Dir(src), outTar)
			if list, _ := exec.Command("tar", "-tvf", arch).Output(); runtime.GOOS != "windows" && !strings.Contains(string(list), "src/hard.txt link to src/a.txt") {
				t.Errorf("no hard link in\n%s", list)
			}
		})
	}
	if code, _, _ := runCLI("a", "-p", "pw", filepath.Join(t.TempDir(), "o.tgz"), src); code != 1 {
		t.Errorf("-p with a tarball: exit %d, want 1", code)
	}
}
