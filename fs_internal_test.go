package unarc

import (
	"errors"
	"io/fs"
	"testing"
	"time"
)

// TestFSSymlinkResolution covers the link rules no real tool makes
// easily: chains, loops, absolute and escaping targets, links in the
// middle of a path and to the root.
func TestFSSymlinkResolution(t *testing.T) {
	a := newFake(
		dir("d"), file("d/f.txt", "file"),
		symlink("chain1", "chain2"), symlink("chain2", "d/f.txt"),
		symlink("loop1", "loop2"), symlink("loop2", "loop1"),
		symlink("self", "self"),
		symlink("abs", "/etc/passwd"),
		symlink("esc", "../../etc/passwd"),
		symlink("d/up", "../d/f.txt"),
		symlink("d/esc", "../../x"),
		symlink("root", "."),
		symlink("dl", "d"),
		symlink("bs", `d\f.txt`),
		symlink("missing", "nothere"),
	)
	ok := map[string]string{
		"chain1":             "file",
		"d/up":               "file",
		"dl/f.txt":           "file",
		"root/d/f.txt":       "file",
		"root/dl/up":         "file",
		"dl/../d/f.txt":      "", // not a valid fs path: rejected before lookup
		"root/root/dl/f.txt": "file",
	}
	for name, want := range ok {
		b, err := fs.ReadFile(a, name)
		if want == "" {
			if !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("%s: %v, want ErrInvalid", name, err)
			}
			continue
		}
		if err != nil || string(b) != want {
			t.Errorf("ReadFile(%s) = %q, %v", name, b, err)
		}
	}
	for _, name := range []string{"loop1", "self", "abs", "esc", "d/esc", "bs", "missing", "loop1/x", "d/f.txt/x"} {
		start := time.Now()
		if _, err := a.Stat(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%s) = %v, want ErrNotExist", name, err)
		}
		if _, err := a.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%s) = %v, want ErrNotExist", name, err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%s took %v", name, d)
		}
	}
	for _, name := range []string{"loop1", "abs", "missing", "d/up"} {
		fi, err := a.Lstat(name)
		if err != nil || fi.Mode().Type() != fs.ModeSymlink {
			t.Errorf("Lstat(%s) = %v, %v", name, fi, err)
		}
	}
	if fi, err := a.Stat("dl"); err != nil || !fi.IsDir() || fi.Name() != "dl" {
		t.Errorf("Stat(dl) = %v, %v", fi, err)
	}
	if got, err := a.ReadLink("dl/up"); err != nil || got != "../d/f.txt" {
		t.Errorf("ReadLink through a dir link = %q, %v", got, err)
	}
	ents, err := a.ReadDir("dl")
	if err != nil || len(ents) != 3 {
		t.Errorf("ReadDir(dl) = %v, %v", ents, err)
	}
	if _, err := a.ReadDir("d/f.txt"); err == nil {
		t.Error("ReadDir of a file succeeded")
	}
}
