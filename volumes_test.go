package unarc_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-unarc/unarc"
)

// sums hashes every file of a.
func sums(t *testing.T, a *unarc.Archive) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	for _, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.OpenEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		out[e.Name] = [32]byte(h.Sum(nil))
	}
	return out
}

// TestVolumesFromFS opens multi-volume sets held in an fstest.MapFS (as
// from embed.FS or object storage) three ways — OpenFS, Open with
// WithVolumes, Open with WithVolumeOpener — and gets what OpenFile reads
// from the OS.
func TestVolumesFromFS(t *testing.T) {
	sets := [][]string{
		{"rar/rar5_vol.part1.rar", "rar/rar5_vol.part2.rar"},
		{"rar/rar4_vol.part1.rar", "rar/rar4_vol.part2.rar"},
		{"rar/rar4_oldvol.rar", "rar/rar4_oldvol.r00"},
		{"7z/vol.7z.001", "7z/vol.7z.002", "7z/vol.7z.003", "7z/vol.7z.004", "7z/vol.7z.005", "7z/vol.7z.006"},
	}
	for _, set := range sets {
		t.Run(set[0], func(t *testing.T) {
			mfs := fstest.MapFS{}
			for _, p := range set {
				b, err := os.ReadFile(filepath.Join("testdata", p))
				if err != nil {
					t.Fatal(err)
				}
				mfs["vols/"+path.Base(p)] = &fstest.MapFile{Data: b}
			}
			want := sums(t, openTestdata(t, set[0]))
			if len(want) == 0 {
				t.Fatal("no files")
			}
			first := "vols/" + path.Base(set[0])
			data := mfs[first].Data

			a, err := unarc.OpenFS(mfs, first)
			if err != nil {
				t.Fatal("OpenFS:", err)
			}
			if got := sums(t, a); !mapsEqual(got, want) {
				t.Errorf("OpenFS read different content")
			}
			a.Close()

			a, err = unarc.Open(bytes.NewReader(data), int64(len(data)), unarc.WithVolumes(mfs, first))
			if err != nil {
				t.Fatal("WithVolumes:", err)
			}
			if got := sums(t, a); !mapsEqual(got, want) {
				t.Errorf("WithVolumes read different content")
			}
			a.Close()

			var asked []string
			closed := 0
			open := func(vol string) (io.ReaderAt, int64, error) {
				asked = append(asked, vol)
				f, ok := mfs[vol]
				if !ok {
					return nil, 0, &fs.PathError{Op: "open", Path: vol, Err: fs.ErrNotExist}
				}
				return closeCounter{bytes.NewReader(f.Data), &closed}, int64(len(f.Data)), nil
			}
			a, err = unarc.Open(bytes.NewReader(data), int64(len(data)), unarc.WithVolumeOpener(first, open))
			if err != nil {
				t.Fatal("WithVolumeOpener:", err)
			}
			if got := sums(t, a); !mapsEqual(got, want) {
				t.Errorf("WithVolumeOpener read different content")
			}
			a.Close()
			if len(asked) == 0 || closed == 0 {
				t.Errorf("opener asked %v, %d volumes closed", asked, closed)
			}

			// Forward-only from a stream: the same content, later
			// volumes opened through the option (7z has no stream reader).
			if !strings.HasPrefix(set[0], "7z/") {
				r, err := unarc.NewReader(bytes.NewReader(data), unarc.WithVolumes(mfs, first))
				if err != nil {
					t.Fatal("NewReader with WithVolumes:", err)
				}
				got := map[string][32]byte{}
				for {
					e, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal("NewReader with WithVolumes:", err)
					}
					if e.IsDir() {
						continue
					}
					h := sha256.New()
					if _, err := io.Copy(h, r); err != nil {
						t.Fatalf("NewReader with WithVolumes: %s: %v", e.Name, err)
					}
					got[e.Name] = [32]byte(h.Sum(nil))
				}
				r.Close()
				if !mapsEqual(got, want) {
					t.Errorf("NewReader with WithVolumes read different content (%d of %d files)", len(got), len(want))
				}
			}

			// Without the option the rest of the set cannot be found.
			if err := openBytes(data); err == nil {
				t.Error("the first volume alone read without error")
			} else {
				t.Logf("first volume alone: %v", err)
			}
		})
	}
}

type closeCounter struct {
	*bytes.Reader
	n *int
}

func (c closeCounter) Close() error { *c.n++; return nil }

func mapsEqual(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// seekOnlyFS serves files that are io.Seekers but not io.ReaderAts, as
// some fs.FS implementations do.
type seekOnlyFS struct{ fstest.MapFS }

type seekOnlyFile struct{ f fs.File }

func (s seekOnlyFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return seekOnlyFile{f}, nil
}

func (f seekOnlyFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f seekOnlyFile) Read(p []byte) (int, error) { return f.f.Read(p) }
func (f seekOnlyFile) Close() error               { return f.f.Close() }
func (f seekOnlyFile) Seek(off int64, whence int) (int64, error) {
	return f.f.(io.Seeker).Seek(off, whence)
}

// TestOpenFSSeekOnly: OpenFS reads through io.Seeker when a file has no
// ReadAt, including a 7z set split into .001 … parts.
func TestOpenFSSeekOnly(t *testing.T) {
	mfs := fstest.MapFS{}
	for i := 1; i <= 6; i++ {
		p := "7z/vol.7z.00" + string(rune('0'+i))
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		mfs[path.Base(p)] = &fstest.MapFile{Data: b}
	}
	if _, ok := any(seekOnlyFile{}).(io.ReaderAt); ok {
		t.Fatal("test file type has ReadAt")
	}
	a, err := unarc.OpenFS(seekOnlyFS{mfs}, "vol.7z.001")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got, want := sums(t, a), sums(t, openTestdata(t, "7z/vol.7z.001")); !mapsEqual(got, want) {
		t.Error("content differs from OpenFile")
	}
}

// TestSplitFromLaterPart: naming any part of a byte-split set (vol.7z.003)
// opens the set from its first part, from the OS and from an fs.FS.
func TestSplitFromLaterPart(t *testing.T) {
	names := func(a *unarc.Archive) []string {
		var out []string
		for _, e := range a.Entries() {
			out = append(out, e.Name)
		}
		return out
	}
	first, err := unarc.OpenFile("testdata/7z/vol.7z.001")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	want := names(first)
	if len(want) == 0 {
		t.Fatal("no entries in vol.7z.001")
	}
	later, err := unarc.OpenFile("testdata/7z/vol.7z.003")
	if err != nil {
		t.Fatalf("OpenFile(vol.7z.003): %v", err)
	}
	defer later.Close()
	if got := names(later); !slices.Equal(got, want) {
		t.Errorf("from .003: %v, want %v", got, want)
	}
	fsys := os.DirFS("testdata/7z")
	viaFS, err := unarc.OpenFS(fsys, "vol.7z.002")
	if err != nil {
		t.Fatalf("OpenFS(vol.7z.002): %v", err)
	}
	defer viaFS.Close()
	if got := names(viaFS); !slices.Equal(got, want) {
		t.Errorf("OpenFS from .002: %v, want %v", got, want)
	}
}

// TestSplitMissingMiddle: a byte-split set with a part missing in the
// middle fails as ErrTruncated naming that part, in OpenFile, OpenFS and
// from a later part; an opener error other than "does not exist" is
// returned as it is (internal/volume's stop rule, the same for every
// format).
func TestSplitMissingMiddle(t *testing.T) {
	dir := t.TempDir()
	mfs := fstest.MapFS{}
	for i := 1; i <= 6; i++ {
		name := fmt.Sprintf("vol.7z.%03d", i)
		b, err := os.ReadFile(filepath.Join("testdata/7z", name))
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			continue
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
		mfs[name] = &fstest.MapFile{Data: b}
	}
	check := func(how string, a *unarc.Archive, err error) {
		t.Helper()
		if err == nil {
			a.Close()
		}
		if !errors.Is(err, unarc.ErrTruncated) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(fmt.Sprint(err), "vol.7z.003") {
			t.Errorf("%s: got %v, want ErrTruncated naming vol.7z.003", how, err)
		}
		for _, s := range []error{unarc.ErrCorrupt, unarc.ErrFormat, unarc.ErrLimit} {
			if errors.Is(err, s) {
				t.Errorf("%s: %v also matches %v", how, err, s)
			}
		}
	}
	a, err := unarc.OpenFile(filepath.Join(dir, "vol.7z.001"))
	check("OpenFile", a, err)
	a, err = unarc.OpenFile(filepath.Join(dir, "vol.7z.004"))
	check("OpenFile from .004", a, err)
	a, err = unarc.OpenFS(mfs, "vol.7z.001")
	check("OpenFS", a, err)

	first := mfs["vol.7z.001"].Data
	denied := func(vol string) (io.ReaderAt, int64, error) {
		if path.Base(vol) == "vol.7z.005" {
			return nil, 0, fs.ErrPermission
		}
		b, err := os.ReadFile(filepath.Join("testdata/7z", path.Base(vol)))
		return bytes.NewReader(b), int64(len(b)), err
	}
	_, err = unarc.Open(bytes.NewReader(first), int64(len(first)), unarc.WithVolumeOpener("vol.7z.001", denied))
	if !errors.Is(err, fs.ErrPermission) || errors.Is(err, unarc.ErrTruncated) {
		t.Errorf("permission error on .005: %v", err)
	}
}
