package sevenzip

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// TestPersistHeaderRegions: the format payload alone (without the root's
// check of the archive's ends) rejects an archive whose header regions
// changed by one byte, and reopens the unchanged one with the same
// entries.
func TestPersistHeaderRegions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "7z", "aes_lzma2_he.7z"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &arc.Config{Password: func(*arc.Entry) (string, error) { return "secret", nil }}
	a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p, err := a.ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.hdrRanges) < 3 {
		t.Fatalf("ranges %v: want the start header, the next header and the encoded header's pack stream", a.hdrRanges)
	}
	for _, r := range a.hdrRanges {
		for _, off := range []int64{r.Off, r.Off + r.Len - 1} {
			c := bytes.Clone(b)
			c[off] ^= 1
			if _, err := openIndex(bytes.NewReader(c), int64(len(c)), p, nil); !errors.Is(err, arc.ErrStaleIndex) {
				t.Errorf("byte %d of range %v changed: %v", off, r, err)
			}
		}
	}
	b2, err := openIndex(bytes.NewReader(b), int64(len(b)), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range b2.Entries() {
		if !reflect.DeepEqual(*e, *a.Entries()[i]) {
			t.Errorf("entry %d differs: %+v", i, *e)
		}
	}
	for n := range p {
		if _, err := openIndex(bytes.NewReader(b), int64(len(b)), p[:n], nil); err == nil {
			t.Fatalf("payload cut at %d opened", n)
		} else if !errors.Is(err, arc.ErrStaleIndex) && !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("payload cut at %d: %v", n, err)
		}
	}
}
