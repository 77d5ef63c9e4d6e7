package unarc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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

// TestRARCutEndReaderNext: read through NewReader, a RAR cut inside its
// end header gives every entry whole, then a Next error that is the
// archive's: ErrTruncated and no EntryError (it was the last entry's,
// "sub: truncated input", though that entry was fine); Reader.Extract
// and Reader.Verify return it as the archive's too, as Archive.Extract
// and Archive.Verify do.
func TestRARCutEndReaderNext(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		end  int
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
		for _, cut := range []int{1, 3, tc.end - 1} {
			d := data[:len(data)-cut]
			what := func(s string) string { return tc.name + " cut by " + strconv.Itoa(cut) + ": " + s }
			isArchiveCut := func(s string, err error) {
				t.Helper()
				var ee *EntryError
				if !errors.Is(err, ErrTruncated) || errors.As(err, &ee) {
					t.Errorf("%s: %v (entry error %v), want the archive's ErrTruncated", what(s), err, ee != nil)
				}
			}
			r, err := NewReader(bytes.NewReader(d))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				e, err := r.Next()
				if err != nil {
					isArchiveCut("Next", err)
					break
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					t.Errorf("%s: %v", what(e.Name), err)
				}
				n++
			}
			if n < 3 {
				t.Errorf("%s: %d entries read", what("Next"), n)
			}
			r.Close()
			r, _ = NewReader(bytes.NewReader(d))
			isArchiveCut("Reader.Extract", r.Extract(ctx, t.TempDir()))
			r.Close()
			r, _ = NewReader(bytes.NewReader(d))
			res, err := r.Verify(ctx)
			isArchiveCut("Reader.Verify", err)
			for _, v := range res {
				if v.Err != nil {
					t.Errorf("%s: %v", what("Reader.Verify "+v.Entry.Name), v.Err)
				}
			}
			r.Close()
		}
	}
}

// TestRARCutInDataReaderNext: a RAR cut inside an entry's data is still
// that entry's error when Next skips it unread (only a cut after whole
// data is the archive's).
func TestRARCutInDataReaderNext(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "rar", "rar5_m3.rar"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data[:2000]))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		_, err := r.Next()
		if err == nil {
			continue
		}
		var ee *EntryError
		if !errors.Is(err, ErrTruncated) || !errors.As(err, &ee) || ee.Entry != "rand.bin" {
			t.Errorf("Next: %v, want rand.bin's ErrTruncated", err)
		}
		return
	}
}
