package unarc_test

import (
	"bytes"
	"io"
	"io/fs"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzFS walks the fs.FS view of arbitrary input: names, implied
// directories, symlinks (loops, escapes), Stat/Lstat/ReadLink, and
// seeking reads. Errors are fine; panics, hangs, and a Stat that
// disagrees with the listing are not.
func FuzzFS(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := testutil.FuzzTimeout
		if testutil.RaceEnabled {
			d *= 10 // the seed corpus also runs under go test -race
		}
		defer testutil.FuzzBound(t, d, 256<<20)()
		a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), fuzzLimits)
		if err != nil {
			return
		}
		defer a.Close()
		files := 0
		fs.WalkDir(a, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			li, lerr := a.Lstat(p)
			if lerr != nil {
				t.Fatalf("Lstat(%q) of a listed path: %v", p, lerr)
			}
			if li.Mode().Type() != d.Type() {
				t.Fatalf("%q: Lstat type %v, ReadDir type %v", p, li.Mode().Type(), d.Type())
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// A link's target is its entry's data, decoded on
				// demand: damaged data is an error naming exactly one
				// sentinel, never a path error of the tree itself.
				if _, err := a.ReadLink(p); err != nil && sentinelsMatched(err) != 1 {
					t.Fatalf("ReadLink(%q): %v", p, err)
				}
			}
			fi, serr := a.Stat(p)
			// Seeking back decodes again from the start: keep each input cheap.
			// An entry inside a solid block decodes its predecessors too.
			if serr != nil || fi.IsDir() || files >= 4 || fi.Size() > 32<<10 {
				return nil
			}
			if e, ok := fi.Sys().(*unarc.Entry); ok && e.Solid && e.Index > 0 {
				return nil
			}
			files++
			fl, err := a.Open(p)
			if err != nil {
				return nil
			}
			defer fl.Close()
			s := fl.(io.ReadSeeker)
			buf := make([]byte, 64)
			size := fi.Size()
			for _, off := range []int64{size / 2, 0, size - 1, size / 3} {
				if off < 0 {
					continue
				}
				if _, err := s.Seek(off, io.SeekStart); err != nil {
					t.Fatalf("Seek(%d): %v", off, err)
				}
				if _, err := s.Read(buf); err != nil {
					break
				}
			}
			fl.(io.ReaderAt).ReadAt(buf, size/4)
			return nil
		})
	})
}
