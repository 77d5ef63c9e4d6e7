package unarc

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
)

// entryErrs maps each failed entry name to its error.
func entryErrs(t *testing.T, err error) map[string]error {
	t.Helper()
	out := map[string]error{}
	if err == nil {
		return out
	}
	var xe *ExtractError
	if !errors.As(err, &xe) {
		t.Fatalf("Extract: %v, want *ExtractError", err)
	}
	for _, e := range xe.Errors {
		out[e.Entry] = e.Err
	}
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return string(b)
}

// TestExtractOverExisting prepares a destination holding a file where the
// archive has a directory, a directory where it has a file, a symlink to
// outside where it has a directory, and an edited file, and extracts under
// each policy: nothing the user had is removed or followed unless the
// policy said so.
func TestExtractOverExisting(t *testing.T) {
	archive := []fakeEntry{
		dir("emptydir"), file("emptydir/in.txt", "in"),
		file("adir", "archive file where the user has a directory"),
		dir("linkdir"), file("linkdir/f.txt", "through the link?"),
		file("hello.txt", "archive hello"),
		file("new.txt", "new"),
	}
	type want struct {
		errs    []string // entries failing with fs.ErrExist
		hello   string   // content of hello.txt afterwards
		renamed []string // paths that must exist beside the originals
	}
	conflicts := []string{"emptydir", "emptydir/in.txt", "adir", "linkdir", "linkdir/f.txt"}
	tests := []struct {
		policy Overwrite
		want   want
	}{
		{OverwriteError, want{errs: append(conflicts, "hello.txt"), hello: "user edits"}},
		{OverwriteSkip, want{errs: conflicts, hello: "user edits"}},
		{OverwriteAlways, want{errs: conflicts, hello: "archive hello"}},
		{OverwriteRename, want{errs: []string{"emptydir", "emptydir/in.txt", "linkdir", "linkdir/f.txt"}, hello: "user edits",
			renamed: []string{"adir_1", "hello_1.txt"}}},
	}
	for _, tc := range tests {
		t.Run(tc.policy.String(), func(t *testing.T) {
			base := t.TempDir()
			dest := filepath.Join(base, "dest")
			elsewhere := filepath.Join(base, "elsewhere")
			for _, d := range []string{dest, elsewhere, filepath.Join(dest, "adir")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(dest, "emptydir"), []byte("user file"), 0o644)
			os.WriteFile(filepath.Join(dest, "adir", "mine.txt"), []byte("user data"), 0o644)
			os.WriteFile(filepath.Join(dest, "hello.txt"), []byte("user edits"), 0o644)
			if err := os.Symlink(elsewhere, filepath.Join(dest, "linkdir")); err != nil {
				t.Fatal(err)
			}

			a := newFake(archive...)
			got := entryErrs(t, a.Extract(context.Background(), dest, WithOverwrite(tc.policy)))
			for _, name := range tc.want.errs {
				if err, ok := got[name]; !ok || !errors.Is(err, fs.ErrExist) {
					t.Errorf("%s: error %v, want one matching fs.ErrExist", name, err)
				}
				delete(got, name)
			}
			for name, err := range got {
				t.Errorf("%s: unexpected error %v", name, err)
			}

			if s := readFile(t, filepath.Join(dest, "emptydir")); s != "user file" {
				t.Errorf("emptydir = %q: the user's file was replaced", s)
			}
			if st, err := os.Lstat(filepath.Join(dest, "adir")); err != nil || !st.IsDir() {
				t.Errorf("adir is no longer the user's directory: %v", err)
			}
			if s := readFile(t, filepath.Join(dest, "adir", "mine.txt")); s != "user data" {
				t.Errorf("adir/mine.txt = %q", s)
			}
			if st, err := os.Lstat(filepath.Join(dest, "linkdir")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the user's symlink linkdir was replaced: %v", err)
			}
			if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
				t.Errorf("written through the user's symlink: %v", ents)
			}
			if s := readFile(t, filepath.Join(dest, "hello.txt")); s != tc.want.hello {
				t.Errorf("hello.txt = %q, want %q", s, tc.want.hello)
			}
			if s := readFile(t, filepath.Join(dest, "new.txt")); s != "new" {
				t.Errorf("new.txt = %q", s)
			}
			for _, p := range tc.want.renamed {
				if _, err := os.Lstat(filepath.Join(dest, p)); err != nil {
					t.Errorf("renamed copy %s missing: %v", p, err)
				}
			}
			if tc.policy == OverwriteRename {
				if s := readFile(t, filepath.Join(dest, "hello_1.txt")); s != "archive hello" {
					t.Errorf("hello_1.txt = %q", s)
				}
			}
			leftovers, _ := filepath.Glob(filepath.Join(dest, "*.tmp"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
}

// TestExtractConflictFunc: the callback decides each regular-file
// conflict and is not asked about the others.
func TestExtractConflictFunc(t *testing.T) {
	dest := t.TempDir()
	os.WriteFile(filepath.Join(dest, "a.txt"), []byte("user a"), 0o644)
	os.WriteFile(filepath.Join(dest, "b.txt"), []byte("user b"), 0o644)
	os.Mkdir(filepath.Join(dest, "c.txt"), 0o755)
	var asked []string
	answer := map[string]Overwrite{"a.txt": OverwriteAlways, "b.txt": OverwriteSkip}
	a := newFake(file("a.txt", "new a"), file("b.txt", "new b"), file("c.txt", "new c"))
	got := entryErrs(t, a.Extract(context.Background(), dest, WithConflictFunc(func(e *Entry, p string, st fs.FileInfo) Overwrite {
		asked = append(asked, p)
		return answer[p]
	})))
	if strings.Join(asked, ",") != "a.txt,b.txt" {
		t.Errorf("asked about %q, want a.txt,b.txt", asked)
	}
	if readFile(t, filepath.Join(dest, "a.txt")) != "new a" || readFile(t, filepath.Join(dest, "b.txt")) != "user b" {
		t.Error("the answers were not applied")
	}
	if len(got) != 1 || !errors.Is(got["c.txt"], fs.ErrExist) {
		t.Errorf("errors %v, want only c.txt with fs.ErrExist", got)
	}
}

// TestExtractSameNameTwice: a later entry of the same archive replaces an
// earlier one (the user's files are not involved).
func TestExtractSameNameTwice(t *testing.T) {
	dest := t.TempDir()
	a := newFake(file("x", "first"), file("x", "second"), file("d", "file first"), dir("d"), file("d/in", "in"))
	if err := a.Extract(context.Background(), dest); err != nil {
		t.Fatal(err)
	}
	if s := readFile(t, filepath.Join(dest, "x")); s != "second" {
		t.Errorf("x = %q", s)
	}
	if s := readFile(t, filepath.Join(dest, "d", "in")); s != "in" {
		t.Errorf("d/in = %q", s)
	}
}

// TestExtractConcurrentSwap swaps a directory the extraction made (or the
// user had) for a symlink to outside, between entries and between the
// parent check and the create: nothing lands outside the destination.
func TestExtractConcurrentSwap(t *testing.T) {
	for _, stage := range []string{"entry", "create"} {
		t.Run(stage, func(t *testing.T) {
			base := t.TempDir()
			dest := filepath.Join(base, "dest")
			outsideDir := filepath.Join(base, "outside")
			os.MkdirAll(outsideDir, 0o755)
			swapped := false
			hook := func(s, rel string) {
				if s != stage || swapped || !strings.HasPrefix(rel, "d/") || rel == "d/a.txt" {
					return
				}
				swapped = true
				d := filepath.Join(dest, "d")
				if err := os.Rename(d, filepath.Join(base, "moved")); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(outsideDir, d); err != nil {
					t.Error(err)
				}
			}
			extractHook = hook
			t.Cleanup(func() { extractHook = nil })
			a := newFake(
				dir("d"), file("d/a.txt", "a"), file("d/b.txt", "b"), symlink("d/l", "a.txt"), hardlink("d/h", "d/a.txt"),
				dir("d/sub"), file("d/sub/c.txt", "c"))
			err := a.Extract(context.Background(), dest)
			if !swapped {
				t.Fatal("hook never ran")
			}
			if err == nil {
				t.Error("Extract succeeded through a swapped-in symlink")
			}
			// Outside dest: the symlink's target must stay empty, and the
			// moved-away directory holds only what it had before the swap.
			var found []string
			filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
				switch rel, _ := filepath.Rel(base, p); rel {
				case ".", "outside", "moved", "moved/a.txt":
				case "dest":
					return filepath.SkipDir
				default:
					found = append(found, rel)
				}
				return nil
			})
			if len(found) > 0 {
				t.Errorf("written outside the destination: %v", found)
			}
		})
	}
}

// openRecorder records which entries were opened. Extract may open
// entries from several workers, so the record is locked and its order
// is not part of the contract.
type openRecorder struct {
	*fakeArchive
	mu     sync.Mutex
	opened []int
}

func (c *openRecorder) Open(i int) (io.ReadCloser, error) {
	c.mu.Lock()
	c.opened = append(c.opened, i)
	c.mu.Unlock()
	return c.fakeArchive.Open(i)
}

func TestExtractFilter(t *testing.T) {
	a := newFake(
		file("a.txt", "a"), file("docs/b.txt", "b"), file("docs/c.txt", "c"), file("z.txt", "z"), file("zz.txt", "zz"))
	ca := &openRecorder{fakeArchive: a.a.(*fakeArchive)}
	a.a, a.view = ca, engine.View(ca)
	dest := t.TempDir()
	if err := a.Extract(context.Background(), dest, WithFilter(func(e *Entry) bool { return strings.HasPrefix(e.Name, "docs/") })); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ca.opened)
	if len(ca.opened) != 2 || ca.opened[0] != 1 || ca.opened[1] != 2 {
		t.Errorf("opened entries %v, want [1 2] (nothing after the last chosen one)", ca.opened)
	}
	ents, _ := os.ReadDir(dest)
	if len(ents) != 1 || ents[0].Name() != "docs" {
		t.Errorf("destination holds %v, want docs only", ents)
	}

	// The same through a forward-only Reader.
	r := &Reader{r: &fakeStream{a: ca.fakeArchive}, opts: a.opts}
	dest2 := t.TempDir()
	if err := r.Extract(context.Background(), dest2); err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(dest2, "*", "*"))
	if len(got) != 2 {
		t.Errorf("stream extraction wrote %v", got)
	}
}

func TestExtractUmask(t *testing.T) {
	um := processUmask()
	if um == 0 {
		t.Skip("umask is 0: nothing to mask")
	}
	f := file("all.sh", "#!/bin/sh\n")
	f.e.Mode = 0o777
	d := dir("open")
	d.e.Mode = fs.ModeDir | 0o777
	for _, preserve := range []bool{false, true} {
		dest := t.TempDir()
		a := newFake(f, d)
		if err := a.Extract(context.Background(), dest, WithPreservePermissions(preserve)); err != nil {
			t.Fatal(err)
		}
		want := fs.FileMode(0o777)
		if !preserve {
			want &^= um
		}
		if st, _ := os.Stat(filepath.Join(dest, "all.sh")); st.Mode().Perm() != want {
			t.Errorf("preserve=%v: file mode %v, want %v", preserve, st.Mode().Perm(), want)
		}
		if st, _ := os.Stat(filepath.Join(dest, "open")); st.Mode().Perm() != want|0o700 {
			t.Errorf("preserve=%v: dir mode %v, want %v", preserve, st.Mode().Perm(), want|0o700)
		}
	}
}

func TestExtractNameLimits(t *testing.T) {
	dest := t.TempDir()
	a := newFakeOpts([]Option{WithLimits(Limits{MaxNameLength: 20, MaxPathDepth: 3})},
		file("long/aaaaaaaaaaaaaaaaaaaaaaaaa.txt", "x"), file("a/b/c/d.txt", "x"), dir("p/q/r/s"), file("ok/fine.txt", "fine"))
	got := entryErrs(t, a.Extract(context.Background(), dest))
	for _, name := range []string{"long/aaaaaaaaaaaaaaaaaaaaaaaaa.txt", "a/b/c/d.txt", "p/q/r/s"} {
		if !errors.Is(got[name], ErrLimit) {
			t.Errorf("%s: %v, want ErrLimit", name, got[name])
		}
	}
	ents, _ := os.ReadDir(dest)
	if len(ents) != 1 || ents[0].Name() != "ok" {
		t.Errorf("destination holds %v, want only ok/ (no empty directories for refused entries)", ents)
	}
}

func TestExtractNameTooLongForFS(t *testing.T) {
	dest := t.TempDir()
	long := strings.Repeat("n", 300) + ".txt" // over NAME_MAX (255) on common file systems
	a := newFake(file(long, "x"), file("d/"+long, "x"), file("fine.txt", "fine"))
	got := entryErrs(t, a.Extract(context.Background(), dest))
	for _, name := range []string{long, "d/" + long} {
		if !errors.Is(got[name], syscall.ENAMETOOLONG) {
			t.Errorf("%.20s…: %v, want ENAMETOOLONG", name, got[name])
		}
		if err := got[name]; err != nil && !strings.Contains(err.Error(), "name too long for the destination file system") {
			t.Errorf("message %q does not explain", err)
		}
	}
	if readFile(t, filepath.Join(dest, "fine.txt")) != "fine" {
		t.Error("fine.txt missing")
	}
}

// TestExtractFilterHardlink: a hard link chosen without its target gets
// the target's data; a link to something outside the archive still fails.
func TestExtractFilterHardlink(t *testing.T) {
	a := newFake(
		file("f", "data"), hardlink("h", "f"), hardlink("g", "nothere"))
	dest := t.TempDir()
	got := entryErrs(t, a.Extract(context.Background(), dest, WithFilter(func(e *Entry) bool { return e.Name != "f" })))
	if len(got) != 1 || !errors.Is(got["g"], ErrInsecurePath) {
		t.Errorf("errors %v, want only g with ErrInsecurePath", got)
	}
	if s := readFile(t, filepath.Join(dest, "h")); s != "data" {
		t.Errorf("h = %q, want the target's data", s)
	}
	if _, err := os.Lstat(filepath.Join(dest, "f")); err == nil {
		t.Error("the unselected target was written")
	}
}
