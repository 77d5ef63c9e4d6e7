package rar

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// memVolumes serves a volume set from memory, so tests can change bytes
// of any volume.
func memVolumes(files map[string][]byte) arc.VolumeOpener {
	return func(name string) (io.ReaderAt, int64, error) {
		b, ok := files[name]
		if !ok {
			return nil, 0, os.ErrNotExist
		}
		return bytes.NewReader(b), int64(len(b)), nil
	}
}

// TestPersistVolumeHeaders: the payload alone (without the root's check
// of the first volume's ends) rejects a set in which one byte of any
// volume's header regions changed — the second volume's included — and
// reopens the unchanged set with the same entries and contents.
func TestPersistVolumeHeaders(t *testing.T) {
	dir := filepath.Join("..", "testdata", "rar")
	files := map[string][]byte{}
	for _, n := range []string{"rar5_vol.part1.rar", "rar5_vol.part2.rar"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	open := func(fs map[string][]byte) *arc.Config {
		return &arc.Config{Name: "rar5_vol.part1.rar", OpenVolume: memVolumes(fs)}
	}
	first := files["rar5_vol.part1.rar"]
	a, err := Open(bytes.NewReader(first), int64(len(first)), conf.From(open(files)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.vols) != 2 {
		t.Fatalf("%d volumes", len(a.vols))
	}
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	for v, name := range []string{"rar5_vol.part1.rar", "rar5_vol.part2.rar"} {
		for _, r := range a.volumeRanges(v) {
			for _, off := range []int64{r.Off, r.Off + r.Len/2, r.Off + r.Len - 1} {
				c := map[string][]byte{}
				for k, b := range files {
					c[k] = b
				}
				c[name] = bytes.Clone(files[name])
				c[name][off] ^= 1
				fr := c["rar5_vol.part1.rar"]
				if _, err := openIndex(bytes.NewReader(fr), int64(len(fr)), p, open(c)); !errors.Is(err, arc.ErrStaleIndex) {
					t.Errorf("%s byte %d (range %v) changed: %v", name, off, r, err)
				}
			}
		}
	}
	// A missing second volume is stale too.
	only := map[string][]byte{"rar5_vol.part1.rar": first}
	if _, err := openIndex(bytes.NewReader(first), int64(len(first)), p, open(only)); !errors.Is(err, arc.ErrStaleIndex) {
		t.Errorf("second volume missing: %v", err)
	}
	b, err := openIndex(bytes.NewReader(first), int64(len(first)), p, open(files))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, e := range b.Entries() {
		if !reflect.DeepEqual(*e, *a.Entries()[i]) {
			t.Errorf("entry %d: %+v", i, *e)
		}
		if !entryData(e) {
			continue
		}
		want, err1 := readAll(a, i)
		got, err2 := readAll(b.(*Archive), i)
		if err1 != nil || err2 != nil || !bytes.Equal(want, got) {
			t.Errorf("%s: %v %v", e.Name, err1, err2)
		}
	}
	for n := range p {
		if _, err := openIndex(bytes.NewReader(first), int64(len(first)), p[:n], open(files)); err == nil || !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("payload cut at %d: %v", n, err)
		}
	}
}
