package unarc_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-unarc/unarc"
)

func TestInfo(t *testing.T) {
	for _, c := range []struct {
		file                     string
		format                   string
		solid, locked, encrypted bool
	}{
		{"fs/locked.rar", "rar", false, true, false},
		{"fs/solid.rar", "rar", true, false, false},
		{"fs/solid.7z", "7z", true, false, false},
		{"fs/tree.zip", "zip", false, false, false},
		{"rar/rar5_m3.rar", "rar", false, false, false},
		{"7z/lzma2_nonsolid.7z", "7z", false, false, false},
		{"rar/rar5_pw.rar", "rar", false, false, true},
	} {
		a := openTestdata(t, c.file)
		in := a.Info()
		if in.Format != c.format || in.Solid != c.solid || in.Locked != c.locked || in.Encrypted != c.encrypted {
			t.Errorf("%s: %+v; want format %s solid %v locked %v encrypted %v", c.file, in, c.format, c.solid, c.locked, c.encrypted)
		}
		// A locked archive says so as a note (it matches no sentinel);
		// nothing else here has anything to warn about.
		for _, w := range a.Warnings() {
			if !c.locked || w.Error() != "rar: archive is locked against changes" {
				t.Errorf("%s: warning %v", c.file, w)
			}
		}
	}
}

// TestWarnings: a RAR cut inside the header after its entries lists them
// and says so in Warnings.
func TestWarnings(t *testing.T) {
	d := testdata(t, "fs/locked.rar")
	cut := d[:len(d)-3] // into the end-of-archive block
	a, err := unarc.Open(bytes.NewReader(cut), int64(len(cut)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cuts := 0
	for _, w := range a.Warnings() {
		if errors.Is(w, unarc.ErrTruncated) {
			cuts++
		}
	}
	if cuts != 1 {
		t.Fatalf("Archive warnings %v; want one truncation", a.Warnings())
	}
	if b, err := a.ReadFile("hello"); err != nil || string(b) != "hello, world\n" {
		t.Fatalf("hello = %q, %v", b, err)
	}
}
