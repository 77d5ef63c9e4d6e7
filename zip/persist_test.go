package zip

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// TestPersistDirectoryRegion: the payload alone rejects an archive whose
// central directory or end record changed by one byte, reopens the
// unchanged one with the same entries, and fails cleanly on every cut.
func TestPersistDirectoryRegion(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "zip", "infozip-comments.zip"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	if a.dirStart <= 0 || a.dirStart >= int64(len(b)) {
		t.Fatalf("directory start %d", a.dirStart)
	}
	for off := a.dirStart; off < int64(len(b)); off++ {
		c := bytes.Clone(b)
		c[off] ^= 1
		if _, err := openIndex(bytes.NewReader(c), int64(len(c)), p, nil); !errors.Is(err, arc.ErrStaleIndex) {
			t.Fatalf("byte %d changed: %v", off, err)
		}
	}
	b2, err := openIndex(bytes.NewReader(b), int64(len(b)), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b2.Entries()) != len(a.Entries()) || b2.Comment() != a.Comment() {
		t.Fatalf("%d entries, comment %q", len(b2.Entries()), b2.Comment())
	}
	for i, e := range b2.Entries() {
		if !reflect.DeepEqual(*e, *a.Entries()[i]) {
			t.Errorf("entry %d: %+v\nwant %+v", i, *e, *a.Entries()[i])
		}
	}
	for n := range p {
		if _, err := openIndex(bytes.NewReader(b), int64(len(b)), p[:n], nil); err == nil || !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("payload cut at %d: %v", n, err)
		}
	}
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
	p, err := a.ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openIndex(bytes.NewReader(b), int64(len(b)), p, nil); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("overlapping entries: %v", err)
	}
}
