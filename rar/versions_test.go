package rar

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

// rar5Versioned builds a RAR5 archive of empty stored files: one per
// name, each with a file-version record of its version (0: none, the
// current file).
func rar5Versioned(names []string, versions []uint64) []byte {
	out := append([]byte(nil), sig5...)
	out = header5Bytes(out, []byte{head5Main, 0, 0})
	var body, extra []byte
	for i, name := range names {
		extra = extra[:0]
		if v := versions[i]; v > 0 {
			rec := putVint([]byte{fx5Version, 0}, v)
			extra = putVint(extra, uint64(len(rec)))
			extra = append(extra, rec...)
		}
		body = append(body[:0], head5File)
		if len(extra) > 0 {
			body = putVint(body, hfl5Extra)
			body = putVint(body, uint64(len(extra)))
		} else {
			body = putVint(body, 0)
		}
		body = append(body, fhd5CRC, 0, 0, 0, 0, 0, 0, 0, 0) // flags, size 0, attributes 0, CRC 0, stored
		body = putVint(body, uint64(len(name)))
		body = append(body, name...)
		body = append(body, extra...)
		out = header5Bytes(out, body)
	}
	return header5Bytes(out, []byte{head5End, 0, 0})
}

// TestVersionsWithoutCurrent: the newest version of a name that has no
// current file is listed as the current one (by its "name;n"), as unrar
// lists it; older versions of it, and versions of a name that has a
// current file, are still skipped (issue 30: an archive whose only file
// carries version records listed and extracted nothing). The cost is
// linear in the number of files.
func TestVersionsWithoutCurrent(t *testing.T) {
	same := func(n int) ([]string, []uint64) {
		names, vs := make([]string, n), make([]uint64, n)
		for i := range names {
			names[i], vs[i] = "d/f", uint64(i+1)
		}
		return names, vs
	}
	many, manyV := same(50000)
	for _, tc := range []struct {
		name    string
		data    []byte
		want    string // the names listed
		skipped int
	}{
		{"one version", rar5Versioned([]string{"f"}, []uint64{1}), "[f;1]", 0},
		{"5000 version records on one file", rar5Archive(1, 5000, true), "[d/f0;5000]", 0},
		{"two versions", rar5Versioned([]string{"f", "f"}, []uint64{1, 2}), "[f;2]", 1},
		{"newest first", rar5Versioned([]string{"f", "f"}, []uint64{7, 3}), "[f;7]", 1},
		{"versions then current", rar5Versioned([]string{"f", "f", "f", "g"}, []uint64{1, 2, 0, 0}), "[f g]", 2},
		{"current then version", rar5Versioned([]string{"f", "f"}, []uint64{0, 1}), "[f]", 1},
		{"two names", rar5Versioned([]string{"f", "g", "f", "g"}, []uint64{1, 1, 2, 0}), "[f;2 g]", 2},
		{"50000 versions of one name", rar5Versioned(many, manyV), "[d/f;50000]", 49999},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a *Archive
			var err error
			d, _ := measure(func() { a, err = Open(bytes.NewReader(tc.data), int64(len(tc.data))) })
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var names []string
			for i, e := range a.Entries() {
				names = append(names, e.Name)
				if _, err := readAll(a, i); err != nil {
					t.Errorf("%s: %v", e.Name, err)
				}
			}
			if got := fmt.Sprint(names); got != tc.want {
				t.Errorf("listed %s, want %s", got, tc.want)
			}
			skipped := hasWarning(a.Warnings(), ErrVersionsSkipped)
			if skipped != (tc.skipped > 0) {
				t.Errorf("warnings %v; want %d skipped", a.Warnings(), tc.skipped)
			}
			if a.versions != tc.skipped {
				t.Errorf("%d versions skipped, want %d", a.versions, tc.skipped)
			}
			if d > 800*time.Millisecond && !raceEnabled {
				t.Errorf("opening took %v of CPU", d)
			}
			// With FileVersions every file is listed.
			all, err := Open(bytes.NewReader(tc.data), int64(len(tc.data)), conf.From(&arc.Config{FileVersions: true}))
			if err != nil {
				t.Fatal(err)
			}
			if len(all.Entries()) != len(all.files) || len(all.Warnings()) != 0 {
				t.Errorf("FileVersions: %d of %d files listed, warnings %v", len(all.Entries()), len(all.files), all.Warnings())
			}
			all.Close()
		})
	}
}

// TestVersionsOnlyReal: rar (RAR5) and rar6 -ma4 (RAR4) archives of f.txt
// added twice with -ver and then deleted (rar d f.txt) hold only f.txt;1:
// it is listed and reads as written, as unrar lists and prints it. An
// index of the archive reopens to the same listing.
func TestVersionsOnlyReal(t *testing.T) {
	for _, name := range []string{"versionsonly5.rar", "versionsonly4.rar"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(contractData, name))
			if err != nil {
				t.Fatal(err)
			}
			a := openBytes(t, data, nil)
			if len(a.Entries()) != 1 || a.Entries()[0].Name != "f.txt;1" {
				t.Fatalf("entries %v", a.Entries())
			}
			if b, err := readAll(a, 0); err != nil || string(b) != "one\n" {
				t.Errorf("f.txt;1: %q, %v", b, err)
			}
			if w := a.Warnings(); len(w) != 0 {
				t.Errorf("warnings %v", w)
			}
			p, err := a.caps().ExportIndex(false)
			if err != nil {
				t.Fatal(err)
			}
			x, err := openIndex(bytes.NewReader(data), int64(len(data)), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if es := x.Entries(); len(es) != 1 || es[0].Name != "f.txt;1" {
				t.Errorf("reopened from its index: %v", es)
			}
			x.Close()
		})
	}
}
