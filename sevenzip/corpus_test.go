package sevenzip

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// openFile opens a 7z file (first volume of a set) with an optional password.
func openFile(tb testutil.TB, path, password string) (*Archive, error) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	cfg := &arc.Config{Name: path, OpenVolume: func(name string) (io.ReaderAt, int64, error) {
		v, err := os.Open(name)
		if err != nil {
			return nil, 0, err
		}
		tb.Cleanup(func() { v.Close() })
		st, err := v.Stat()
		if err != nil {
			return nil, 0, err
		}
		return v, st.Size(), nil
	}}
	if password != "" {
		cfg.Password = func(*arc.Entry) (string, error) { return password, nil }
	}
	return Open(f, st.Size(), conf.From(cfg))
}

func errClass(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errs.ErrPassword), errors.Is(err, errs.ErrPasswordRequired):
		return "wrong_password"
	case errors.Is(err, errs.ErrUnsupported):
		return "unsupported"
	case errors.Is(err, errs.ErrCorrupt), errors.Is(err, errs.ErrTruncated), errors.Is(err, errs.ErrChecksum), errors.Is(err, errs.ErrFormat):
		return "corrupt"
	}
	return "other: " + err.Error()
}

// checkCase compares one archive with its manifest rows; it returns the
// first mismatch or error.
func checkCase(t *testing.T, dir string, c *testutil.Case) error {
	pw := ""
	for _, r := range c.Rows {
		if r.Password != "" {
			pw = r.Password
		}
	}
	a, err := openFile(t, filepath.Join(dir, c.Archive), pw)
	if err != nil {
		return err
	}
	defer a.Close()
	got := map[string]*arc.Entry{}
	var firstErr error
	sums := map[string][]byte{}
	for i, e := range a.Entries() {
		got[e.Name] = e
		if e.IsDir() || e.Link != arc.LinkNone {
			continue
		}
		rc, err := a.Open(i)
		if err == nil {
			h := sha256.New()
			_, err = io.Copy(h, rc)
			rc.Close()
			sums[e.Name] = h.Sum(nil)
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", e.Name, err)
		}
	}
	if firstErr != nil {
		return firstErr
	}
	for _, r := range c.Rows {
		e := got[r.Entry]
		if r.Type == "dir-implicit" {
			continue
		}
		if e == nil {
			return fmt.Errorf("%w: missing entry %q", errMismatch, r.Entry)
		}
		switch r.Type {
		case "dir":
			if !e.IsDir() {
				return fmt.Errorf("%w: %q not a dir", errMismatch, r.Entry)
			}
		case "symlink":
			target, err := a.LinkTarget(e.Index)
			if err != nil {
				return fmt.Errorf("%q: %w", r.Entry, err)
			}
			if e.Link != arc.LinkSymlink || target != r.Target || e.LinkTarget != target {
				return fmt.Errorf("%w: %q link %v %q, want %q", errMismatch, r.Entry, e.Link, target, r.Target)
			}
		case "file":
			if !bytes.Equal(sums[r.Entry], r.SHA256) || e.Size != r.Size {
				return fmt.Errorf("%w: %q content differs", errMismatch, r.Entry)
			}
		}
	}
	return nil
}

var errMismatch = errors.New("mismatch")

// TestCorpus checks every 7z archive of the shared corpus against the
// manifest: entries and contents, or the expected error class.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	dir := testutil.CorpusDir(t)
	match, rightErr, wrong := 0, 0, 0
	for _, c := range testutil.Manifest(t, dir) {
		if !strings.HasPrefix(c.Archive, "7z/") && !strings.HasPrefix(c.Archive, "own/7z/") {
			continue
		}
		t.Run(c.Archive, func(t *testing.T) {
			err := checkCase(t, dir, c)
			switch {
			case c.Error != "" && testutil.BeyondMethods(c.Archive):
				// 7zz lacks the coder (7-Zip-zstd's); every entry must
				// read, CRC-checked.
				if err != nil {
					wrong++
					t.Errorf("a coder 7zz lacks, which we read: %v", err)
				} else {
					match++
				}
			case c.Error != "":
				if got := errClass(err); got == c.Error {
					rightErr++
				} else {
					wrong++
					t.Errorf("want error class %s, got %v", c.Error, err)
				}
			case err != nil:
				wrong++
				t.Errorf("%v", err)
			default:
				match++
			}
		})
	}
	t.Logf("7z corpus: %d match, %d right error, %d wrong", match, rightErr, wrong)
	if match == 0 {
		t.Error("no 7z corpus archive matched")
	}
}
