//go:build unix

package unarc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// storedTime is what the file system at dir keeps of t for a file (or
// for a symlink itself): t, or the limit it clamps t to (ext4 holds
// 1901-2446).
func storedTime(t *testing.T, dir string, tm time.Time, link bool) time.Time {
	t.Helper()
	p := filepath.Join(dir, "probe")
	os.Remove(p)
	flags := 0
	if link {
		os.Symlink("x", p)
		flags = unix.AT_SYMLINK_NOFOLLOW
	} else {
		os.WriteFile(p, nil, 0o644)
	}
	defer os.Remove(p)
	spec, err := unix.TimeToTimespec(tm)
	if err != nil {
		t.Skipf("%v does not fit this platform's time_t", tm)
	}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{spec, spec}, flags); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.ModTime()
}

// TestExtractTimesOutsideUnixNano restores times after 2262-04-11 and
// before 1678 (out of UnixNano's range, which Root.Chtimes goes through:
// 2500 came back as 1901) on files, directories and symlinks, in order
// and on 8 workers.
func TestExtractTimesOutsideUnixNano(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2500, 6, 7, 8, 9, 10, 123456789, time.UTC),
		time.Date(1600, 2, 3, 4, 5, 6, 0, time.UTC),
	} {
		for _, workers := range []int{1, 8} {
			with := func(fe fakeEntry) fakeEntry { fe.e.Modified = tm; return fe }
			a := newFakeOpts([]Option{WithWorkers(workers)},
				with(dir("d")), with(file("d/f.txt", "f")), with(file("g.txt", "g")), with(symlink("d/l", "f.txt")))
			dest := t.TempDir()
			if err := a.Extract(context.Background(), dest); err != nil {
				t.Fatal(err)
			}
			wantFile, wantLink := storedTime(t, t.TempDir(), tm, false), storedTime(t, t.TempDir(), tm, true)
			for _, c := range []struct {
				name string
				want time.Time
			}{{"d", wantFile}, {"d/f.txt", wantFile}, {"g.txt", wantFile}, {"d/l", wantLink}} {
				st, err := os.Lstat(filepath.Join(dest, c.name))
				if err != nil {
					t.Fatal(err)
				}
				if !st.ModTime().Equal(c.want) {
					t.Errorf("%v, workers %d: %s mtime %v, want %v", tm, workers, c.name, st.ModTime().UTC(), c.want.UTC())
				}
			}
		}
	}
}
