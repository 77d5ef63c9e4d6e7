package zip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestPersistDirectoryRegion: the payload alone rejects an archive whose
// central directory or end record changed by one byte, reopens the
// unchanged one with the same entries, and fails cleanly on every cut.
func TestPersistDirectoryRegion(t *testing.T) {
	b := testutil.ReadTestdata(t, "zip", "infozip-comments.zip")
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	if a.dirStart <= 0 || a.dirStart >= int64(len(b)) {
		t.Fatalf("directory start %d", a.dirStart)
	}
	var flips []int64
	for off := a.dirStart; off < int64(len(b)); off++ {
		flips = append(flips, off)
	}
	testutil.CheckPayload(t, b, p, flips, a, func(ra io.ReaderAt, size int64, p []byte) (arc.Archive, error) {
		return openIndex(ra, size, p, nil)
	}, testutil.Classes(errs.ErrCorrupt))
}

// TestPersistOverlap: an index is untrusted input: entries it places over
// each other (an overlapping-file bomb) are refused as a directory
// holding them would be.
func TestPersistOverlap(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "zip", "infozip-deflate.zip"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.files) < 2 {
		t.Fatal("want 2 entries")
	}
	a.files[1].headerOff = a.files[0].headerOff
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openIndex(bytes.NewReader(b), int64(len(b)), p, nil); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("overlapping entries: %v", err)
	}
}
