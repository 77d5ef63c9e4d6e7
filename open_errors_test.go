package unarc_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-unarc/unarc"
)

// TestOpenFileNamesArchive: every error of OpenFile and OpenFS about the
// archive names it once, after one "unarc: " prefix, and still matches
// its one root sentinel (and io.ErrUnexpectedEOF, *fs.PathError where
// those apply). Open, which has no name, keeps the prefix alone.
func TestOpenFileNamesArchive(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	whole, err := os.ReadFile(filepath.Join("testdata", "7z", "lzma2.7z"))
	if err != nil {
		t.Fatal(err)
	}
	hp := filepath.Join("testdata", "rar", "rar5_hp_solid.rar")
	tests := []struct {
		name string
		path string
		opts []unarc.Option
		want error
	}{
		{"not-an-archive", write("text.zip", []byte("just some text, not an archive at all")), nil, unarc.ErrFormat},
		{"truncated", write("cut.7z", whole[:300]), nil, unarc.ErrTruncated},
		{"password-required", hp, nil, unarc.ErrPasswordRequired},
		{"wrong-password", hp, []unarc.Option{unarc.WithPassword("wrong")}, unarc.ErrPassword},
		{"limit", filepath.Join("testdata", "rar", "rar5_solid.rar"),
			[]unarc.Option{unarc.WithLimits(unarc.Limits{MaxEntries: 2})}, unarc.ErrLimit},
		{"directory", dir, nil, unarc.ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := unarc.OpenFile(tc.path, tc.opts...)
			checkOneSentinel(t, tc.name, err, tc.want)
			if err == nil {
				return
			}
			s := err.Error()
			if !strings.HasPrefix(s, "unarc: "+tc.path+": ") || strings.Count(s, "unarc:") != 1 || strings.Count(s, tc.path) != 1 {
				t.Errorf("%q does not start with %q and name the archive once", s, "unarc: "+tc.path+": ")
			}
		})
	}
	_, err = unarc.OpenFile(filepath.Join(dir, "cut.7z"))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: %v does not match io.ErrUnexpectedEOF", err)
	}
	missing := filepath.Join(dir, "missing.zip")
	_, err = unarc.OpenFile(missing)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || strings.Count(err.Error(), missing) != 1 {
		t.Errorf("missing file: %v (%T); want an *fs.PathError naming it once", err, err)
	}
	fsys := fstest.MapFS{"a/b.rar": {Data: []byte("not a rar either")}}
	_, err = unarc.OpenFS(fsys, "a/b.rar")
	checkOneSentinel(t, "OpenFS", err, unarc.ErrFormat)
	if err == nil || !strings.HasPrefix(err.Error(), "unarc: a/b.rar: ") {
		t.Errorf("OpenFS: %v does not name the archive", err)
	}
	f := openFileT(t, filepath.Join(dir, "text.zip"))
	_, err = unarc.Open(f, 37)
	if err == nil || !strings.HasPrefix(err.Error(), "unarc: ") || strings.Count(err.Error(), "unarc:") != 1 {
		t.Errorf("Open of no archive: %v; want one \"unarc: \" prefix", err)
	}
}
