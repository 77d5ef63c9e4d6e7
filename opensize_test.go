package unarc_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/rar"
	"github.com/go-unarc/unarc/sevenzip"
	"github.com/go-unarc/unarc/tar"
	"github.com/go-unarc/unarc/zip"
)

// sizeOpener is one exported function that takes an io.ReaderAt and the
// size it holds.
type sizeOpener struct {
	name  string
	open  func(ra io.ReaderAt, size int64) (arc.Archive, error)
	index func(ra io.ReaderAt, size int64, payload []byte, cfg *arc.Config) (arc.Archive, error)
	sniff func(ra io.ReaderAt, size int64) bool
}

// archiveOf makes an arc.Archive of a format package's Open result
// without a typed nil inside the interface.
func archiveOf[T arc.Archive](a T, err error) (arc.Archive, error) {
	if err != nil {
		return nil, err
	}
	return a, nil
}

// sizeArchives is one small real archive per format and container
// version, with the package that reads it.
var sizeArchives = []struct {
	path string
	fmt  sizeOpener
}{
	{"rar/rar5_m0.rar", rarOpener},
	{"rar/rar4_m0.rar", rarOpener},
	{"zip/infozip-deflate.zip", zipOpener},
	{"7z/tiny_lzma2.7z", sevenzipOpener},
	{"tar/gnu.tar", tarOpener},
	{"tar/small.tar.gz", tarOpener},
}

var (
	rarOpener = sizeOpener{"rar",
		func(ra io.ReaderAt, size int64) (arc.Archive, error) { return archiveOf(rar.Open(ra, size)) },
		rar.Format.OpenIndex, rar.Format.Sniff}
	zipOpener = sizeOpener{"zip",
		func(ra io.ReaderAt, size int64) (arc.Archive, error) { return archiveOf(zip.Open(ra, size)) },
		zip.Format.OpenIndex, zip.Format.Sniff}
	sevenzipOpener = sizeOpener{"sevenzip",
		func(ra io.ReaderAt, size int64) (arc.Archive, error) { return archiveOf(sevenzip.Open(ra, size)) },
		sevenzip.Format.OpenIndex, sevenzip.Format.Sniff}
	tarOpener = sizeOpener{"tar",
		func(ra io.ReaderAt, size int64) (arc.Archive, error) { return archiveOf(tar.Open(ra, size, nil)) },
		tar.Format.OpenIndex, tar.Format.Sniff}
)

// TestOpenSize: a negative size is ErrInvalidOption and a size past the
// end of the input ErrTruncated from every Open and OpenIndex of every
// package and the root's Open with WithIndex (ErrStaleIndex from those
// two, whose index records the size), and Sniff says no to a negative size;
// none panics (issue 29: unarc.Open(r, -1) and rar.Open(r, -1) panicked
// with "slice bounds out of range").
func TestOpenSize(t *testing.T) {
	for _, tc := range sizeArchives {
		t.Run(tc.path, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.path))
			if err != nil {
				t.Fatal(err)
			}
			n := int64(len(data))
			ra := bytes.NewReader(data)
			// The honest size opens, and gives the indexes to reopen with.
			a, err := unarc.Open(ra, n)
			if err != nil {
				t.Fatal(err)
			}
			idx, err := a.Index()
			a.Close()
			if err != nil {
				t.Fatal(err)
			}
			fa, err := tc.fmt.open(ra, n)
			if err != nil {
				t.Fatalf("%s.Open: %v", tc.fmt.name, err)
			}
			payload, err := engine.View(fa).(engine.Indexer).ExportIndex(false)
			fa.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !tc.fmt.sniff(ra, n) {
				t.Fatalf("%s.Sniff: false for the honest size", tc.fmt.name)
			}
			if a, err := unarc.Open(ra, n, unarc.WithIndex(idx)); err != nil {
				t.Fatalf("Open with WithIndex: %v", err)
			} else {
				a.Close()
			}

			for _, size := range []int64{-1, -n, math.MinInt64, n + 1, n + 1<<20, math.MaxInt64 - 1, math.MaxInt64} {
				want := unarc.ErrTruncated
				if size < 0 {
					want = unarc.ErrInvalidOption
				}
				try := func(what string, a interface{ Close() error }, err error) {
					t.Helper()
					if err == nil {
						a.Close()
					}
					if !errors.Is(err, want) {
						t.Errorf("%s(size %d) = %v; want %v", what, size, err, want)
					}
				}
				ua, err := unarc.Open(ra, size)
				try("unarc.Open", ua, err)
				ua, err = unarc.Open(ra, size, unarc.WithIndex(idx))
				if size > 0 && errors.Is(err, arc.ErrStaleIndex) {
					err = unarc.ErrTruncated
				}
				try("unarc.Open with WithIndex", ua, err)
				fa, err := tc.fmt.open(ra, size)
				try(tc.fmt.name+".Open", fa, err)
				// A format's OpenIndex compares the size with the one its
				// index records before reading: a stale index, not a read.
				fa, err = tc.fmt.index(ra, size, payload, nil)
				if size > 0 && errors.Is(err, arc.ErrStaleIndex) {
					err = unarc.ErrTruncated
				}
				try(tc.fmt.name+".OpenIndex", fa, err)
				if size < 0 && tc.fmt.sniff(ra, size) {
					t.Errorf("%s.Sniff(size %d) = true", tc.fmt.name, size)
				}
			}
		})
	}
}

// TestVolumeOpenerSize: a volume opener's size is checked as Open's is
// (a negative or too large one was trusted as the next volume's length).
func TestVolumeOpenerSize(t *testing.T) {
	dir := filepath.Join("testdata", "rar")
	for _, tc := range []struct {
		first, second string
	}{
		{"rar5_vol.part1.rar", "rar5_vol.part2.rar"},
		{"rar4_vol.part1.rar", "rar4_vol.part2.rar"},
	} {
		for _, lie := range []int64{-1, math.MaxInt64} {
			open := func(name string) (io.ReaderAt, int64, error) {
				b, err := os.ReadFile(name)
				if err != nil {
					return nil, 0, err
				}
				size := int64(len(b))
				if filepath.Base(name) == tc.second {
					size = lie
				}
				return bytes.NewReader(b), size, nil
			}
			name := filepath.Join(dir, tc.first)
			ra, size, _ := open(name)
			a, err := unarc.Open(ra, size, unarc.WithVolumeOpener(name, open))
			if err == nil {
				// The volume is opened when the entry needs it.
				err = readEvery(a)
				a.Close()
			}
			want := unarc.ErrTruncated
			if lie < 0 {
				want = unarc.ErrInvalidOption
			}
			if !errors.Is(err, want) {
				t.Errorf("%s, second volume's size %d: %v; want %v", tc.first, lie, err, want)
			}
		}
	}
}

func readEvery(a *unarc.Archive) error {
	for _, e := range a.Entries() {
		rc, err := a.OpenEntry(e)
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// FuzzOpenSize opens a real small archive of each format through a
// window of it (an offset and a length) with an arbitrary size argument,
// through the root and the format package: errors are fine, panics are
// not, and an error for a size within the window matches a sentinel.
func FuzzOpenSize(f *testing.F) {
	var srcs [][]byte
	var fmts []sizeOpener
	for _, tc := range sizeArchives {
		b, err := os.ReadFile(filepath.Join("testdata", tc.path))
		if err != nil {
			f.Fatal(err)
		}
		srcs, fmts = append(srcs, b), append(fmts, tc.fmt)
	}
	for i, b := range srcs {
		n := int64(len(b))
		for _, s := range [][2]int64{{0, n}, {0, -1}, {0, n + 1}, {0, math.MaxInt64}, {0, math.MinInt64}, {1, n - 1}, {-1, n}, {n / 2, n}, {0, n - 3}, {n, 0}} {
			f.Add(uint8(i), s[0], n, s[1])
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, off, length, size int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, fuzzAlloc)()
		i := int(which) % len(srcs)
		ra := io.NewSectionReader(bytes.NewReader(srcs[i]), off, length)
		inWindow := size >= 0 && off >= 0 && off <= int64(len(srcs[i])) && size <= min(length, int64(len(srcs[i]))-off)
		check := func(what string, err error) {
			if err != nil && inWindow && sentinelsMatched(err) == 0 && !errors.Is(err, unarc.ErrInvalidOption) {
				t.Fatalf("%s(off %d, length %d, size %d): %v matches no sentinel", what, off, length, size, err)
			}
		}
		if a, err := unarc.Open(ra, size, fuzzLimits); err == nil {
			readEvery(a)
			a.Close()
		} else {
			check("unarc.Open", err)
		}
		fa, err := fmts[i].open(ra, size)
		if err == nil {
			fa.Close()
		}
		check(fmts[i].name+".Open", err)
		fmts[i].sniff(ra, size)
	})
}
