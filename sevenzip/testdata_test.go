package sevenzip

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/testutil"
)

const testPassword = "secret"

// testArchives lists the first volume of every archive in testdata/7z.
func testArchives(tb testutil.TB) []string {
	all := testutil.Glob(tb, "../testdata/7z/*.7z")
	vols := testutil.Glob(tb, "../testdata/7z/*.7z.001")
	return append(all, vols...)
}

// TestRoundTrip extracts every testdata archive with 7zz and with this
// package and compares the trees entry by entry.
func TestRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	for _, path := range testArchives(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			out, err := exec.Command("7zz", "x", "-y", "-snl", "-p"+testPassword, "-o"+dir, path).CombinedOutput()
			if err != nil {
				t.Fatalf("7zz: %v\n%s", err, out)
			}
			a, err := openFile(t, path, testPassword)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			seen := map[string]bool{}
			for i, e := range a.Entries() {
				seen[e.Name] = true
				p := filepath.Join(dir, filepath.FromSlash(e.Name))
				st, err := os.Lstat(p)
				if err != nil {
					t.Errorf("%s: 7zz did not extract it: %v", e.Name, err)
					continue
				}
				switch {
				case e.IsDir():
					if !st.IsDir() {
						t.Errorf("%s: dir here, not for 7zz", e.Name)
					}
				case e.Link == arc.LinkSymlink:
					target, err := os.Readlink(p)
					got, gerr := a.LinkTarget(i)
					if err != nil || gerr != nil || target != got {
						t.Errorf("%s: link %q (%v), 7zz %q (%v)", e.Name, got, gerr, target, err)
					}
				default:
					want, _ := os.ReadFile(p)
					rc, err := a.Open(i)
					if err != nil {
						t.Errorf("%s: %v", e.Name, err)
						continue
					}
					got, err := io.ReadAll(rc)
					rc.Close()
					if err != nil {
						t.Errorf("%s: %v", e.Name, err)
					} else if !bytes.Equal(got, want) {
						t.Errorf("%s: content differs (%d vs %d bytes)", e.Name, len(got), len(want))
					}
					if e.Mode.Perm() != st.Mode().Perm() {
						t.Errorf("%s: mode %v, 7zz %v", e.Name, e.Mode, st.Mode())
					}
					if !e.Modified.IsZero() && !e.Modified.Equal(st.ModTime()) {
						t.Errorf("%s: mtime %v, 7zz %v", e.Name, e.Modified, st.ModTime())
					}
				}
			}
			filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				rel, _ := filepath.Rel(dir, p)
				if info != nil && info.IsDir() {
					return nil // may be an implicit parent
				}
				if rel != "." && !seen[filepath.ToSlash(rel)] && !strings.HasPrefix(rel, "..") {
					t.Errorf("7zz extracted %s, missing here", rel)
				}
				return nil
			})
		})
	}
}
