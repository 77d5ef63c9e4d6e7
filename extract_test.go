package unarc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// outside lists everything under base except the destination dir, so a
// test can check nothing was written beside it.
func outside(t *testing.T, base, dest string) []string {
	t.Helper()
	var got []string
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if p == base {
			return nil
		}
		if p == dest {
			return filepath.SkipDir
		}
		got = append(got, p)
		return nil
	})
	return got
}

func TestExtractRefusesEscapes(t *testing.T) {
	tests := []struct {
		name    string
		entries []fakeEntry
		refused []string // entry names that must fail with ErrInsecurePath
		exist   []string // paths (relative to dest) that must exist afterwards
		absent  []string // paths (relative to dest) that must not exist
	}{
		{"dotdot", []fakeEntry{file("../evil.txt", "x"), file("ok.txt", "ok")}, []string{"../evil.txt"}, []string{"ok.txt"}, nil},
		{"dotdot-inner", []fakeEntry{file("a/../../evil.txt", "x")}, []string{"a/../../evil.txt"}, nil, nil},
		{"absolute", []fakeEntry{file("/tmp/unarc-evil.txt", "x")}, []string{"/tmp/unarc-evil.txt"}, nil, nil},
		{"backslash", []fakeEntry{file(`..\evil.txt`, "x")}, []string{`..\evil.txt`}, nil, nil},
		{"drive", []fakeEntry{file("C:/evil.txt", "x"), file("c:evil.txt", "x")}, []string{"C:/evil.txt", "c:evil.txt"}, nil, nil},
		{"symlink-abs", []fakeEntry{symlink("l", "/etc")}, []string{"l"}, nil, []string{"l"}},
		{"symlink-up", []fakeEntry{symlink("d/l", "../../x")}, []string{"d/l"}, nil, []string{"d/l"}},
		{"symlink-up-ok", []fakeEntry{symlink("d/l", "../x")}, nil, nil, nil},
		{"symlink-dotdot-after-name", []fakeEntry{symlink("up", "."), symlink("l", "up/..")}, []string{"l"}, nil, nil},
		{"symlink-dotdot-after-name-deep", []fakeEntry{dir("d"), symlink("d/up", ".."), symlink("d/l", "up/..")}, []string{"d/l"}, nil, nil},
		{"symlink-then-write", []fakeEntry{dir("sub"), symlink("link", "sub"), file("link/x.txt", "x")},
			[]string{"link/x.txt"}, []string{"link"}, []string{"sub/x.txt"}},
		{"symlink-dot-then-write", []fakeEntry{symlink("link", "."), file("link/x.txt", "x")},
			[]string{"link/x.txt"}, nil, []string{"x.txt"}},
		{"hardlink-out", []fakeEntry{hardlink("h", "../../etc/passwd")}, []string{"h"}, nil, []string{"h"}},
		{"hardlink-unknown", []fakeEntry{hardlink("h", "nothere")}, []string{"h"}, nil, []string{"h"}},
		{"hardlink-ok", []fakeEntry{file("f", "data"), hardlink("h", "f")}, nil, []string{"f", "h"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dest := filepath.Join(base, "dest")
			a := newFake(tc.entries...)
			err := a.Extract(context.Background(), dest)
			var xe *ExtractError
			if len(tc.refused) == 0 {
				if err != nil {
					t.Fatalf("Extract: %v", err)
				}
			} else {
				if !errors.As(err, &xe) {
					t.Fatalf("Extract error %v, want *ExtractError", err)
				}
				if !errors.Is(err, ErrInsecurePath) {
					t.Fatalf("Extract error %v, want ErrInsecurePath", err)
				}
				var names []string
				for _, e := range xe.Errors {
					names = append(names, e.Entry)
				}
				if strings.Join(names, "|") != strings.Join(tc.refused, "|") {
					t.Errorf("refused %q, want %q", names, tc.refused)
				}
			}
			if o := outside(t, base, dest); len(o) > 0 {
				t.Errorf("written outside the destination: %q", o)
			}
			for _, p := range tc.exist {
				if _, err := os.Lstat(filepath.Join(dest, p)); err != nil {
					t.Errorf("%s missing: %v", p, err)
				}
			}
			for _, p := range tc.absent {
				if _, err := os.Lstat(filepath.Join(dest, p)); err == nil {
					t.Errorf("%s exists, want absent", p)
				}
			}
		})
	}
}

func TestExtractChecksumFailureLeavesNoFile(t *testing.T) {
	dest := t.TempDir()
	bad := file("bad.txt", "corrupted content")
	bad.badCRC = true
	a := newFake(file("a.txt", "first"), bad, file("c.txt", "third"))
	err := a.Extract(context.Background(), dest)
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("Extract error %v, want ErrChecksum", err)
	}
	ents, _ := os.ReadDir(dest)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a.txt,c.txt" {
		t.Errorf("destination holds %q, want a.txt and c.txt only (no temporary or bad file)", names)
	}
}

func TestExtractRestoresMetadata(t *testing.T) {
	dest := t.TempDir()
	mt := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	f := file("bin/tool", "#!/bin/sh\n")
	f.e.Mode = 0o4755 | fs.ModeSetuid
	f.e.Modified = mt
	d := dir("bin")
	d.e.Modified = mt
	a := newFake(d, f, symlink("bin/alias", "tool"))
	if err := a.Extract(context.Background(), dest); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dest, "bin/tool"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode() != 0o755 {
		t.Errorf("mode %v, want -rwxr-xr-x (setuid dropped)", st.Mode())
	}
	if !st.ModTime().Equal(mt) {
		t.Errorf("mtime %v, want %v", st.ModTime(), mt)
	}
	dst, _ := os.Stat(filepath.Join(dest, "bin"))
	if !dst.ModTime().Equal(mt) {
		t.Errorf("dir mtime %v, want %v", dst.ModTime(), mt)
	}
	if tgt, err := os.Readlink(filepath.Join(dest, "bin/alias")); err != nil || tgt != "tool" {
		t.Errorf("symlink: %q, %v", tgt, err)
	}
}

func TestExtractCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := newFake(file("a.txt", "x"))
	if err := a.Extract(ctx, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Extract after cancel: %v", err)
	}
}

func TestFS(t *testing.T) {
	a := newFake(dir("d"), file("d/a.txt", "alpha"), file("e/b.txt", "beta"), file("top.txt", "top"),
		file("../skip.txt", "not in the fs view"))
	if err := fstest.TestFS(a, "d/a.txt", "e/b.txt", "top.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(a, "skip.txt"); err == nil {
		t.Error("insecure name visible in the fs view")
	}
}

func TestLimits(t *testing.T) {
	big := file("big.bin", strings.Repeat("z", 5000))
	big.e.PackedSize = 2 << 20 // large enough for the ratio check to apply
	small := file("small.bin", "tiny")
	t.Run("entry-size", func(t *testing.T) {
		dest := t.TempDir()
		a := newFakeOpts([]Option{WithLimits(Limits{MaxEntrySize: 100})}, big, small)
		err := a.Extract(context.Background(), dest)
		if !errors.Is(err, ErrLimit) {
			t.Fatalf("Extract: %v, want ErrLimit", err)
		}
		if _, err := os.Stat(filepath.Join(dest, "big.bin")); err == nil {
			t.Error("over-limit entry written")
		}
		if _, err := os.Stat(filepath.Join(dest, "small.bin")); err != nil {
			t.Error("small entry not written")
		}
	})
	t.Run("ratio", func(t *testing.T) {
		// The ratio measures output of unknown size only: a declared
		// size bounds the entry itself.
		for _, size := range []int64{-1, 3 << 20} {
			bomb := file("bomb.bin", strings.Repeat("z", 3<<20))
			bomb.e.PackedSize = 1 << 20
			a := newFakeOpts([]Option{WithLimits(Limits{MaxRatio: 2, RatioFloor: 1 << 20})}, bomb)
			a.Entries()[0].Size = size
			rc, err := a.OpenEntry(a.Entries()[0])
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, rc)
			if size < 0 && (!errors.Is(err, ErrLimit) || LimitName(err) != "MaxRatio") {
				t.Errorf("undeclared size: read: %v, want ErrLimit naming MaxRatio", err)
			}
			if size >= 0 && err != nil {
				t.Errorf("declared size: read: %v", err)
			}
		}
	})
	t.Run("progress", func(t *testing.T) {
		var last Progress
		calls := 0
		a := newFake(small, file("b", "bb"))
		if err := a.Extract(context.Background(), t.TempDir(), WithProgress(func(p Progress) { last = p; calls++ })); err != nil {
			t.Fatal(err)
		}
		if calls < 2 || !last.Done || last.TotalWritten != 6 || last.Entry.Name != "b" {
			t.Errorf("progress: %d calls, last %+v", calls, last)
		}
	})
}

// fakeStream adapts a fake archive to the forward-only Reader, to test
// what Extract does without random access.
type fakeStream struct {
	a   *fakeArchive
	i   int
	cur io.Reader
}

func (f *fakeStream) Next() (*Entry, error) {
	if f.i >= len(f.a.ents) {
		return nil, io.EOF
	}
	e := f.a.ents[f.i]
	rc, _ := f.a.Open(f.i)
	if e.Link == LinkCopy {
		rc = io.NopCloser(strings.NewReader("")) // like rar's Reader: no source data in a stream
	}
	f.cur = rc
	f.i++
	return e, nil
}
func (f *fakeStream) Read(p []byte) (int, error) { return f.cur.Read(p) }
func (f *fakeStream) Close() error               { return nil }

func TestReaderExtractFileCopy(t *testing.T) {
	cp := fakeEntry{e: Entry{Name: "copy.txt", Mode: 0o644, Link: LinkCopy, LinkTarget: "orig.txt", Size: 8}}
	a := newFake(file("orig.txt", "original"), cp)
	r := &Reader{r: &fakeStream{a: a.a.(*fakeArchive)}, opts: a.opts}
	dest := t.TempDir()
	if err := r.Extract(context.Background(), dest); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "copy.txt")); err != nil || string(b) != "original" {
		t.Fatalf("copy.txt = %q, %v", b, err)
	}
}

func TestEntryErrorMessage(t *testing.T) {
	e := &EntryError{Entry: "dir/a.txt", Err: fmt.Errorf("%w: compression method BZip2 (12)", ErrUnsupported)}
	if got, want := e.Err.Error(), "unsupported method or version: compression method BZip2 (12)"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	if got, want := e.Error(), "dir/a.txt: unsupported method or version: compression method BZip2 (12)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, ErrUnsupported) {
		t.Error("EntryError does not unwrap")
	}
}

// TestExtractErrorsCapped: an archive of many bad entries yields an
// ExtractError listing the first maxExtractErrors and counting the rest.
func TestExtractErrorsCapped(t *testing.T) {
	var list []fakeEntry
	for i := range maxExtractErrors + 500 {
		list = append(list, file(fmt.Sprintf("../escape%d", i), "x"))
	}
	list = append(list, file("ok.txt", "fine"))
	err := newFake(list...).Extract(t.Context(), t.TempDir())
	var xe *ExtractError
	if !errors.As(err, &xe) {
		t.Fatalf("Extract: %v", err)
	}
	if len(xe.Errors) != maxExtractErrors || xe.Omitted != 500 || xe.Failed() != maxExtractErrors+500 {
		t.Errorf("%d listed, %d omitted; want %d and 500", len(xe.Errors), xe.Omitted, maxExtractErrors)
	}
	if !errors.Is(err, ErrInsecurePath) {
		t.Errorf("%v does not match ErrInsecurePath", err)
	}
}
