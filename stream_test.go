package unarc_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// onlyReader hides everything but Read, as a pipe or socket would.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// tree maps each regular file and symlink under dir to its content hash
// or target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			out[rel] = "-> " + tgt
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			out[rel] = string(sum[:])
		}
		return nil
	})
	return out
}

// TestReaderMatchesArchive extracts every unencrypted single-volume ZIP
// and RAR in testdata twice, through Open and through NewReader over a
// plain io.Reader, and compares the trees (content detection, SFX stubs
// and the forward-only decoders all take part).
func TestReaderMatchesArchive(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/zip/*.zip", "testdata/rar/*.rar"} {
		paths = append(paths, testutil.Glob(t, g)...)
	}
	checked := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a, err := unarc.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			continue // encrypted headers, missing volumes: tested elsewhere
		}
		skip := false
		for _, e := range a.Entries() {
			skip = skip || e.Encrypted || e.Link == unarc.LinkSymlink // stream ZIPs have no modes for links
		}
		if skip {
			a.Close()
			continue
		}
		d1, d2 := t.TempDir(), t.TempDir()
		err1 := a.Extract(context.Background(), d1)
		a.Close()
		r, err := unarc.NewReader(onlyReader{bytes.NewReader(data)})
		if err != nil {
			t.Errorf("%s: NewReader: %v", p, err)
			continue
		}
		err2 := r.Extract(context.Background(), d2)
		r.Close()
		if (err1 == nil) != (err2 == nil) {
			t.Errorf("%s: Archive.Extract %v, Reader.Extract %v", p, err1, err2)
			continue
		}
		t1, t2 := tree(t, d1), tree(t, d2)
		if len(t1) != len(t2) {
			t.Errorf("%s: %d files via Archive, %d via Reader", p, len(t1), len(t2))
		}
		for k, v := range t1 {
			if t2[k] != v {
				t.Errorf("%s: %s differs between Archive and Reader", p, k)
			}
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d archives compared", checked)
	}
	t.Logf("%d archives compared", checked)
}

// TestReaderLongStub finds an archive behind a stub larger than the
// stream buffer, so the signature scan must slide (and may straddle).
func TestReaderLongStub(t *testing.T) {
	zipData, err := os.ReadFile("testdata/zip/infozip-store.zip")
	if err != nil {
		t.Skip(err)
	}
	for _, stubLen := range []int{0, 1, 65535, 65536 - 2, 200000} {
		stub := bytes.Repeat([]byte{0x90}, stubLen)
		r, err := unarc.NewReader(onlyReader{io.MultiReader(bytes.NewReader(stub), bytes.NewReader(zipData))})
		if err != nil {
			t.Fatalf("stub %d: %v", stubLen, err)
		}
		e, err := r.Next()
		if err != nil || e.Name == "" {
			t.Fatalf("stub %d: first entry %v, %v", stubLen, e, err)
		}
		r.Close()
	}
	if _, err := unarc.NewReader(bytes.NewReader(bytes.Repeat([]byte("no archive here "), 10000))); !errors.Is(err, unarc.ErrFormat) {
		t.Fatalf("plain text: %v, want ErrFormat", err)
	}
}
