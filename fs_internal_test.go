package unarc

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/testutil"
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
		start := testutil.CPUTime()
		if _, err := a.Stat(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%s) = %v, want ErrNotExist", name, err)
		}
		if _, err := a.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%s) = %v, want ErrNotExist", name, err)
		}
		if d := testutil.CPUSince(start); d > 100*time.Millisecond {
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

// countingArchive counts the entry opens of an arc.Archive.
type countingArchive struct {
	arc.Archive
	opens int
}

func (c *countingArchive) Open(i int) (io.ReadCloser, error) {
	c.opens++
	return c.Archive.Open(i)
}

// TestFSSeekHead: reading the first bytes, seeking back to the start and
// reading on (content sniffing) decodes once; going back past the kept
// head reopens; every read returns the right bytes.
func TestFSSeekHead(t *testing.T) {
	content := strings.Repeat("0123456789abcdef", 200)
	a := newFake(file("f", content))
	ca := &countingArchive{Archive: a.a}
	a.a, a.view = ca, engine.View(ca)
	f, err := a.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.(io.ReadSeeker)
	sniff := make([]byte, 512)
	if _, err := io.ReadFull(s, sniff); err != nil || string(sniff) != content[:512] {
		t.Fatal(err)
	}
	s.Seek(0, io.SeekStart)
	all, err := io.ReadAll(s)
	if err != nil || string(all) != content {
		t.Fatalf("after sniff: %d bytes, %v", len(all), err)
	}
	if ca.opens != 1 {
		t.Errorf("sniff and reread: %d opens, want 1", ca.opens)
	}
	s.Seek(1000, io.SeekStart)
	buf := make([]byte, 10)
	if _, err := io.ReadFull(s, buf); err != nil || string(buf) != content[1000:1010] {
		t.Fatalf("at 1000: %q %v", buf, err)
	}
	if ca.opens != 2 {
		t.Errorf("back past the head: %d opens, want 2", ca.opens)
	}
	if _, err := f.(io.ReaderAt).ReadAt(buf, 5); err != nil || string(buf) != content[5:15] {
		t.Fatalf("ReadAt(5): %q %v", buf, err)
	}
	if ca.opens != 2 {
		t.Errorf("ReadAt in the head: %d opens, want 2", ca.opens)
	}
}

// TestFSSub: fs.Sub of an Archive passes fstest.TestFS and still stats
// and lists without opening any entry.
func TestFSSub(t *testing.T) {
	a := newFake(dir("d"), file("d/f.txt", "file"), dir("d/e"), file("d/e/g.txt", "gee"),
		symlink("d/up", "../top.txt"), file("top.txt", "top"), symlink("dl", "d"))
	ca := &countingArchive{Archive: a.a}
	a.a, a.view = ca, engine.View(ca)
	for _, root := range []string{"d", "dl"} {
		sub, err := fs.Sub(a, root)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := sub.(fs.StatFS); !ok {
			t.Fatalf("fs.Sub(%s) is not a StatFS", root)
		}
		ca.opens = 0
		if fi, err := fs.Stat(sub, "e/g.txt"); err != nil || fi.Size() != 3 {
			t.Fatalf("Stat = %v, %v", fi, err)
		}
		if _, err := fs.ReadDir(sub, "e"); err != nil {
			t.Fatal(err)
		}
		if ca.opens != 0 {
			t.Errorf("Stat and ReadDir of a sub-tree opened %d entries", ca.opens)
		}
		if err := fstest.TestFS(sub, "f.txt", "e/g.txt", "up"); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Stat(sub, "nothere"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing: %v", err)
		} else if pe := err.(*fs.PathError); pe.Path != "nothere" {
			t.Errorf("error path %q", pe.Path)
		}
	}
	if _, err := fs.Sub(a, "top.txt"); err == nil {
		t.Error("Sub of a file succeeded")
	}
}
