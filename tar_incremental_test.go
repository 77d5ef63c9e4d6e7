package unarc

import (
	"context"
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
