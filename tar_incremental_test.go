package unarc

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestExtractGNUIncremental: a GNU incremental tar (tar -g; its
// directories are type 'D') extracts its directories as directories and
// the files under them (issue 29: exit 8, the directories were written
// as files first), through an Archive and a Reader.
func TestExtractGNUIncremental(t *testing.T) {
	p := filepath.Join("testdata", "tar", "incremental.tar")
	check := func(how, dir string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		for name, want := range map[string]string{"dir/one.txt": "one\n", "dir/sub/two.txt": "two\n"} {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
				t.Errorf("%s: %s: %q, %v", how, name, got, err)
			}
		}
	}
	a, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dir := t.TempDir()
	check("Archive", dir, a.Extract(context.Background(), dir))
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir = t.TempDir()
	check("Reader", dir, r.Extract(context.Background(), dir))
}

// TestExtractDotEntries: a tar entry named "." that is no directory (a
// file with data, a symlink) is refused with ErrInsecurePath by Extract,
// per entry, and said in Warnings; the directory "." is the destination
// itself; the other entries extract (issue 30: such entries were dropped
// without a word).
func TestExtractDotEntries(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: ".", Typeflag: tar.TypeReg, Mode: 0o644, Size: 5})
	tw.Write([]byte("hello"))
	tw.WriteHeader(&tar.Header{Name: ".", Typeflag: tar.TypeSymlink, Linkname: "elsewhere", Mode: 0o777})
	tw.WriteHeader(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "ok.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: 2})
	tw.Write([]byte("ok"))
	tw.Close()
	data := buf.Bytes()
	check := func(how string, ws []error, err error, dir string) {
		t.Helper()
		var xe *ExtractError
		refused := 0
		if errors.As(err, &xe) {
			for _, ee := range xe.Errors {
				if errors.Is(ee, ErrInsecurePath) && ee.Entry == "." {
					refused++
				}
			}
		}
		if refused != 2 || len(xe.Errors) != 2 {
			t.Errorf("%s: Extract: %v; want the file and the symlink named \".\" refused", how, err)
		}
		if len(ws) != 2 {
			t.Errorf("%s: warnings %v; want 2", how, ws)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(b) != "ok" {
			t.Errorf("%s: ok.txt: %q, %v", how, b, err)
		}
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dir := t.TempDir()
	err = a.Extract(context.Background(), dir)
	check("Archive", a.Warnings(), err, dir)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir = t.TempDir()
	err = r.Extract(context.Background(), dir)
	check("Reader", r.Warnings(), err, dir)
}
