package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

// TestNULNameAsArchiveName: a ZIP entry whose name starts with NUL is
// extracted under the archive's name without its extension, as 7zz 26
// extracts it on Linux (it was refused as an empty name, exit 6).
func TestNULNameAsArchiveName(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "data.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, n := range []string{"\x00abc", "ok.txt"} {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("data of " + n))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "out")
	if code, _, errs := runCLI("x", "-o", out, p); code != 0 {
		t.Fatalf("x: exit %d: %s", code, errs)
	}
	for name, want := range map[string]string{"data": "data of \x00abc", "ok.txt": "data of ok.txt"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
}
