package zip

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// openLastDisk opens the last disk of a spanned set from testdata, its
// other disks missing (testdata/zip/make-spanned.sh).
func openLastDisk(t *testing.T, name string) *Archive {
	t.Helper()
	data := readTestdata(t, name)
	cfg := &arc.Config{
		Name: filepath.Join("..", "testdata", "zip", name),
		OpenVolume: func(p string) (io.ReaderAt, int64, error) {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, 0, err
			}
			return bytes.NewReader(b), int64(len(b)), nil
		},
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestSpannedMissingDisk: a spanned set whose first disk is missing opens
// (7zz lists and extracts what the present disks hold). An entry wholly
// on the present disk reads exactly; one that starts on the missing disk
// fails with ErrTruncated naming it; the set's warning is a notice only
// when no listed entry needs the missing disk. The index of such a set is
// refused.
func TestSpannedMissingDisk(t *testing.T) {
	const small = "small file on the last disk\n"
	read := func(a *Archive, name string) ([]byte, error) {
		for i, e := range a.Entries() {
			if e.Name == name {
				rc, err := a.Open(i)
				if err != nil {
					return nil, err
				}
				defer rc.Close()
				return io.ReadAll(rc)
			}
		}
		t.Fatalf("no entry %s", name)
		return nil, nil
	}
	warning := func(a *Archive) error {
		if w := a.Warnings(); len(w) == 1 && errors.Is(w[0], errs.ErrTruncated) && errors.Is(w[0], fs.ErrNotExist) {
			return w[0]
		}
		t.Fatalf("warnings %v: want one missing-volume warning", a.Warnings())
		return nil
	}

	a := openLastDisk(t, "spanned-lastdisk-unneeded.zip")
	if got, err := read(a, "small.txt"); err != nil || string(got) != small || len(a.Entries()) != 1 {
		t.Errorf("unneeded: %d entries, small.txt %q, %v", len(a.Entries()), got, err)
	}
	if w := warning(a); !errors.Is(w, errs.ErrNotice) {
		t.Errorf("unneeded: warning %v is not a notice", w)
	}
	if _, err := a.caps().ExportIndex(false); !errors.Is(err, errs.ErrUnsupported) {
		t.Errorf("index of a set with a missing disk: %v", err)
	}

	a = openLastDisk(t, "spanned-lastdisk.zip")
	if got, err := read(a, "small.txt"); err != nil || string(got) != small || len(a.Entries()) != 2 {
		t.Errorf("needed: %d entries, small.txt %q, %v", len(a.Entries()), got, err)
	}
	if _, err := read(a, "big.bin"); !errors.Is(err, errs.ErrTruncated) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("big.bin, which starts on the missing disk: %v", err)
	}
	if w := warning(a); errors.Is(w, errs.ErrNotice) {
		t.Errorf("needed: warning %v is a notice", w)
	}
}
