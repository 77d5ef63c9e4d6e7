package zip

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

// nulNames is a ZIP (archive/zip) whose first entry's name starts with
// NUL and whose third is stored without a name.
func nulNames(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range []string{"\x00abc", "ok.txt", "", "d/\x00x"} {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("data of " + n))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestUnnamedEntry: a name that is empty once cut at its first NUL (or
// stored empty) is named after the archive, as 7zz 26 names it
// ("data.zip" gives "data"; it was "", which Extract refuses); "[Content]"
// when the archive has no name. The local headers still match (the raw
// names are compared), in the Archive and the stream Reader.
func TestUnnamedEntry(t *testing.T) {
	data := nulNames(t)
	for _, c := range []struct{ archive, want string }{
		{"/tmp/x/data.zip", "data"},
		{"data.ZIP", "data"},
		{"noext", "noext~"},
		{"", "[Content]"},
	} {
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Name: c.archive}))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{c.want, "ok.txt", c.want, "d/"}
		es := a.Entries()
		if len(es) != len(want) {
			t.Fatalf("%q: %d entries", c.archive, len(es))
		}
		for i, e := range es {
			if e.Name != want[i] {
				t.Errorf("%q: entry %d is %q, want %q", c.archive, i, e.Name, want[i])
			}
		}
		for i, raw := range []string{"\x00abc", "ok.txt", ""} {
			rc, err := a.Open(i)
			if err != nil {
				t.Errorf("%q: open %q: %v", c.archive, es[i].Name, err)
				continue
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || string(b) != "data of "+raw {
				t.Errorf("%q: %q reads %q, %v", c.archive, es[i].Name, b, err)
			}
		}
		a.Close()

		r, err := NewReader(bytes.NewReader(data), conf.From(&arc.Config{Name: c.archive}))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			e, err := r.Next()
			if err == io.EOF {
				if i != len(want) {
					t.Errorf("%q: stream has %d entries", c.archive, i)
				}
				break
			}
			if err != nil {
				t.Fatalf("%q: stream: %v", c.archive, err)
			}
			if i < len(want) && e.Name != want[i] {
				t.Errorf("%q: stream entry %d is %q, want %q", c.archive, i, e.Name, want[i])
			}
		}
		r.Close()
	}
}

// TestUnnamedEntryIndex: an entry stored without a name keeps its
// archive name through an exported index and still reads (its local
// header's empty name is the stored one, not "data").
func TestUnnamedEntryIndex(t *testing.T) {
	data := nulNames(t)
	cfg := &arc.Config{Name: "data.zip"}
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := openIndex(bytes.NewReader(data), int64(len(data)), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range b.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := b.Open(i)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil || e.Name != a.Entries()[i].Name {
			t.Errorf("entry %d %q (want %q): %v", i, e.Name, a.Entries()[i].Name, err)
		}
	}
}
