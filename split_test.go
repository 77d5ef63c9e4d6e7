package unarc

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func TestSplitVolumes(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 10000)
	rand.NewChaCha8([32]byte{1}).Read(data)
	name := filepath.Join(dir, "a.7z.001")
	cuts := []int{0, 3000, 3001, 7000, 10000}
	for i := 0; i+1 < len(cuts); i++ {
		p := filepath.Join(dir, "a.7z.00"+string(rune('1'+i)))
		if err := os.WriteFile(p, data[cuts[i]:cuts[i+1]], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.Open(name)
	defer f.Close()
	open, closers := testOpener()
	defer closers()
	c, err := splitVolumes(name, f, 3000, open)
	if err != nil || c == nil {
		t.Fatalf("splitVolumes: %v, %v", c, err)
	}
	if got := c.Size(); got != 10000 {
		t.Fatalf("total size %d", got)
	}
	got, err := io.ReadAll(io.NewSectionReader(c, 0, 10000))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("concatenation differs: %v", err)
	}
	buf := make([]byte, 5000)
	if n, err := c.ReadAt(buf, 2500); n != 5000 || err != nil || !bytes.Equal(buf, data[2500:7500]) {
		t.Fatalf("ReadAt across parts: %d %v", n, err)
	}
	if n, err := c.ReadAt(buf, 8000); n != 2000 || err != io.EOF {
		t.Fatalf("ReadAt past end: %d %v", n, err)
	}
	if c2, _ := splitVolumes(filepath.Join(dir, "plain.zip"), f, 1, open); c2 != nil {
		t.Fatal("plain name taken as a split set")
	}
}

// TestSplitVolumesRealVolumes: parts whose second file starts with an
// archive signature are real volumes, left for the format to follow.
func TestSplitVolumesRealVolumes(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "a.rar.001")
	os.WriteFile(first, []byte("Rar!\x1a\x07\x00 first volume"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.rar.002"), []byte("Rar!\x1a\x07\x00 second volume"), 0o644)
	f, _ := os.Open(first)
	defer f.Close()
	open, closers := testOpener()
	c, err := splitVolumes(first, f, 20, open)
	closers()
	if err != nil || c != nil {
		t.Fatalf("real volumes joined as a byte split: %v, %v", c, err)
	}
}

// testOpener opens OS files and closes them all when told.
func testOpener() (func(string) (io.ReaderAt, int64, error), func()) {
	var files []*os.File
	return func(name string) (io.ReaderAt, int64, error) {
			ra, n, err := openOSFile(name)
			if err == nil {
				files = append(files, ra.(*os.File))
			}
			return ra, n, err
		}, func() {
			for _, f := range files {
				f.Close()
			}
		}
}
