package unarc

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRARCutEnd: a RAR cut inside its end-of-archive header lists and
// extracts every entry, but Extract and Verify return ErrTruncated, for
// the Archive and the Reader (issue 29: Extract returned nil and only
// Warnings said so; a cut end header also hides whether more volumes
// follow). A RAR without any end header, cut at the header boundary, is
// taken as unrar takes it: nil, the warning only in Warnings.
func TestRARCutEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  int // length of its end-of-archive header
	}{
		{"rar5_m3.rar", 8},
		{"rar4_m3.rar", 7},
		{"rar5_solid.rar", 8},
		{"rar4_solid.rar", 7},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "rar", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		want := extractedFiles(t, data, nil)
		if len(want) < 3 {
			t.Fatalf("%s: %d files", tc.name, len(want))
		}
		for _, cut := range []int{1, 3, tc.end - 1, tc.end} {
			var wantErr error
			if cut < tc.end {
				wantErr = ErrTruncated
			}
			d := data[:len(data)-cut]
			got := extractedFiles(t, d, wantErr)
			if len(got) != len(want) {
				t.Errorf("%s cut by %d: %d files extracted, want %d", tc.name, cut, len(got), len(want))
			}
			for name, b := range want {
				if !bytes.Equal(got[name], b) {
					t.Errorf("%s cut by %d: %s differs", tc.name, cut, name)
				}
			}
		}
	}
}

// extractedFiles extracts data through Archive.Extract and Reader.Extract
// and verifies it through both Verifys: each must give wantErr (nil or
// an error matching it), and both write the same files. It returns the
// files Archive.Extract wrote.
func extractedFiles(t *testing.T, data []byte, wantErr error) map[string][]byte {
	t.Helper()
	check := func(what string, err error) {
		t.Helper()
		if wantErr == nil && err != nil || wantErr != nil && !errors.Is(err, wantErr) {
			t.Errorf("%d bytes: %s: %v; want %v", len(data), what, err, wantErr)
		}
	}
	ctx := context.Background()
	a, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dir := t.TempDir()
	check("Archive.Extract", a.Extract(ctx, dir))
	res, err := a.Verify(ctx)
	check("Archive.Verify", err)
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("%d bytes: Archive.Verify: %v", len(data), r.Err)
		}
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rdir := t.TempDir()
	check("Reader.Extract", r.Extract(ctx, rdir))
	r, err = NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Verify(ctx)
	check("Reader.Verify", err)

	files, rfiles := readTree(dir), readTree(rdir)
	if len(rfiles) != len(files) {
		t.Errorf("%d bytes: Reader.Extract wrote %d files, Archive.Extract %d", len(data), len(rfiles), len(files))
	}
	for name, b := range files {
		if !bytes.Equal(rfiles[name], b) {
			t.Errorf("%d bytes: %s: Reader.Extract wrote other bytes", len(data), name)
		}
	}
	return files
}

// readTree returns the regular files under dir by their slash path.
func readTree(dir string) map[string][]byte {
	files := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	return files
}
