//go:build unix

package unarc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

var allPolicies = []Overwrite{OverwriteError, OverwriteSkip, OverwriteAlways, OverwriteRename}

// TestExtractAgainKeepsSameLinks extracts archives holding symlinks (and
// hard links) twice into one folder, under every policy, in order and on
// 8 workers: the links the first run made are recognised as the entries'
// own, so no link entry fails and none is renamed; only regular files
// that exist fail under OverwriteError.
func TestExtractAgainKeepsSameLinks(t *testing.T) {
	archives := []string{
		"testdata/tar/small.tar.gz",
		"testdata/parallel/p20-solid4.7z",
		"testdata/parallel/p20-rar5.rar",
		"testdata/parallel/p20-folders.7z",
	}
	for _, name := range archives {
		for _, policy := range allPolicies {
			for _, workers := range []int{0, 1, 8} {
				if workers == 0 && strings.HasSuffix(name, ".7z") {
					continue // no Reader for 7z
				}
				dest := t.TempDir()
				extract := func() error {
					if workers == 0 { // a Reader
						f, err := os.Open(name)
						if err != nil {
							t.Fatal(err)
						}
						defer f.Close()
						r, err := NewReader(f)
						if err != nil {
							t.Fatal(err)
						}
						defer r.Close()
						return r.Extract(context.Background(), dest, WithOverwrite(policy))
					}
					a, err := OpenFile(name, WithWorkers(workers))
					if err != nil {
						t.Fatal(err)
					}
					defer a.Close()
					return a.Extract(context.Background(), dest, WithOverwrite(policy))
				}
				if err := extract(); err != nil {
					t.Fatalf("%s: first extraction: %v", name, err)
				}
				before := tree(t, dest)
				linkedBefore := linked(dest)
				links := 0
				for _, v := range before {
					if strings.HasPrefix(v, "L") {
						links++
					}
				}
				if links == 0 {
					t.Fatalf("%s: no symlink extracted", name)
				}
				err := extract()
				for ent, e := range entryErrs(t, err) {
					if policy != OverwriteError || !errors.Is(e, fs.ErrExist) {
						t.Errorf("%s %v workers %d: %s: %v", name, policy, workers, ent, e)
						continue
					}
					if st, err := os.Lstat(filepath.Join(dest, ent)); err != nil || !st.Mode().IsRegular() {
						t.Errorf("%s %v: %s failed (%v) but is no regular file there", name, policy, ent, e)
					}
				}
				after := tree(t, dest)
				for p, v := range before {
					if strings.HasPrefix(v, "L") && after[p] != v {
						t.Errorf("%s %v workers %d: link %s: %q, was %q", name, policy, workers, p, after[p], v)
					}
				}
				noTemps(t, dest)
				if n := linked(dest); policy != OverwriteRename && n != linkedBefore {
					// Hard links are still hard links (to the new file).
					t.Errorf("%s %v workers %d: %d files with more than one link, %d before", name, policy, workers, n, linkedBefore)
				}
				if policy == OverwriteRename {
					for p, v := range after {
						if _, ok := before[p]; !ok && strings.HasPrefix(v, "L") {
							t.Errorf("%s: link renamed to %s although it was the same", name, p)
						}
					}
				}
			}
		}
	}
}

// TestExtractOverOtherLinks puts symlinks that differ from the entries
// where the archive has a symlink and a file: OverwriteAlways replaces
// the links themselves (nothing is written through them), OverwriteSkip
// keeps them silently, OverwriteRename writes beside them, and
// OverwriteError fails both entries.
func TestExtractOverOtherLinks(t *testing.T) {
	for _, policy := range allPolicies {
		for _, workers := range []int{1, 8} {
			base := t.TempDir()
			dest := filepath.Join(base, "dest")
			outsideFile := filepath.Join(base, "outside.txt")
			os.MkdirAll(dest, 0o755)
			os.WriteFile(outsideFile, []byte("outside"), 0o644)
			os.Symlink("elsewhere", filepath.Join(dest, "link"))
			os.Symlink(outsideFile, filepath.Join(dest, "file.txt"))
			a := newFakeOpts([]Option{WithWorkers(workers)},
				file("target", "t"), symlink("link", "target"), file("file.txt", "archive file"))
			got := entryErrs(t, a.Extract(context.Background(), dest, WithOverwrite(policy)))
			if s := readFile(t, outsideFile); s != "outside" {
				t.Fatalf("%v: written through a link: %q", policy, s)
			}
			link, _ := os.Readlink(filepath.Join(dest, "link"))
			st, _ := os.Lstat(filepath.Join(dest, "file.txt"))
			switch policy {
			case OverwriteError:
				if !errors.Is(got["link"], fs.ErrExist) || !errors.Is(got["file.txt"], fs.ErrExist) || len(got) != 2 {
					t.Errorf("error policy: %v", got)
				}
			case OverwriteAlways:
				if len(got) != 0 || link != "target" || !st.Mode().IsRegular() || readFile(t, filepath.Join(dest, "file.txt")) != "archive file" {
					t.Errorf("always: errors %v, link -> %q, file.txt %v", got, link, st.Mode())
				}
			case OverwriteSkip:
				if len(got) != 0 || link != "elsewhere" || st.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("skip: errors %v, link -> %q, file.txt %v", got, link, st.Mode())
				}
			case OverwriteRename:
				l1, _ := os.Readlink(filepath.Join(dest, "link_1"))
				if len(got) != 0 || link != "elsewhere" || l1 != "target" || readFile(t, filepath.Join(dest, "file_1.txt")) != "archive file" {
					t.Errorf("rename: errors %v, link -> %q, link_1 -> %q", got, link, l1)
				}
			}
		}
	}
}

// TestExtractSkipHardLinkTarget: under OverwriteSkip a hard link whose
// target entry was skipped (the file existed) is linked to the file that
// is there, and skipped with a note when a symlink is there (never
// followed): no ErrInsecurePath, in an Archive, on 8 workers, in a
// Reader and for a real tarball extracted twice.
func TestExtractSkipHardLinkTarget(t *testing.T) {
	list := []fakeEntry{file("d/t.txt", "archive"), hardlink("h.txt", "d/t.txt")}
	run := func(dest string, stream bool, workers int) ([]string, error) {
		var skipped []string
		xopts := []ExtractOption{WithOverwrite(OverwriteSkip), WithProgress(func(p Progress) {
			if p.Skipped != "" {
				skipped = append(skipped, p.Entry.Name)
			}
		})}
		a := newFakeOpts([]Option{WithWorkers(workers)}, list...)
		if stream {
			r := &Reader{r: &fakeStream{a: a.a.(*fakeArchive)}, opts: a.opts, acct: a.acct}
			err := r.Extract(context.Background(), dest, xopts...)
			return skipped, err
		}
		err := a.Extract(context.Background(), dest, xopts...)
		return skipped, err
	}
	for _, c := range []struct {
		stream  bool
		workers int
	}{{false, 1}, {false, 8}, {true, 1}} {
		base := t.TempDir()
		dest := filepath.Join(base, "dest")
		os.MkdirAll(filepath.Join(dest, "d"), 0o755)
		os.WriteFile(filepath.Join(dest, "d/t.txt"), []byte("user"), 0o644)
		if _, err := run(dest, c.stream, c.workers); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		s1, _ := os.Stat(filepath.Join(dest, "d/t.txt"))
		s2, err := os.Lstat(filepath.Join(dest, "h.txt"))
		if err != nil || !os.SameFile(s1, s2) || readFile(t, filepath.Join(dest, "h.txt")) != "user" {
			t.Errorf("%+v: h.txt is not a link to the kept d/t.txt (%v)", c, err)
		}

		// A symlink where the target was: the link is skipped.
		dest = filepath.Join(base, "dest2")
		os.MkdirAll(filepath.Join(dest, "d"), 0o755)
		os.WriteFile(filepath.Join(base, "outside"), []byte("outside"), 0o644)
		os.Symlink(filepath.Join(base, "outside"), filepath.Join(dest, "d/t.txt"))
		skipped, err := run(dest, c.stream, c.workers)
		if err != nil {
			t.Fatalf("%+v: over a symlink: %v", c, err)
		}
		if _, err := os.Lstat(filepath.Join(dest, "h.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%+v: h.txt made to a symlink's target (%v)", c, err)
		}
		if len(skipped) != 1 || skipped[0] != "h.txt" {
			t.Errorf("%+v: skipped %v, want h.txt with a note", c, skipped)
		}
	}

	dest := t.TempDir()
	for i := range 2 {
		f, err := os.Open("testdata/tar/small.tar.gz")
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Extract(context.Background(), dest, WithOverwrite(OverwriteSkip)); err != nil {
			t.Errorf("run %d: %v", i+1, err)
		}
		f.Close()
	}
	s1, _ := os.Stat(filepath.Join(dest, "dir/text.txt"))
	s2, _ := os.Stat(filepath.Join(dest, "dir/hardlink-to-text"))
	if !os.SameFile(s1, s2) {
		t.Error("tarball: the hard link is no longer one")
	}
}

// linked counts the regular files under dir with more than one link.
func linked(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if st, err := os.Lstat(p); err == nil {
			if s, ok := st.Sys().(*syscall.Stat_t); ok && s.Nlink > 1 {
				n++
			}
		}
		return nil
	})
	return n
}
