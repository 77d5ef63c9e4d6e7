package testutil

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
	"testing"
)

// TestCraftedZips: the crafted archives are what they claim, checked
// with the standard library's reader (which reads overlapping entries).
func TestCraftedZips(t *testing.T) {
	for _, n := range []int64{0, 1000, 1 << 20, 3<<20 + 5} {
		z := DeflateZeros(n)
		got, err := io.Copy(io.Discard, flate.NewReader(bytes.NewReader(z)))
		if err != nil || got != n {
			t.Errorf("DeflateZeros(%d): %d bytes, %v", n, got, err)
		}
	}
	for name, data := range map[string][]byte{
		"full":   ZipBombFull(2<<20, 5),
		"quoted": ZipBombQuoted(2<<20, 5),
	} {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(zr.File) != 5 {
			t.Fatalf("%s: %d entries", name, len(zr.File))
		}
		var total int64
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatalf("%s/%s: %v", name, f.Name, err)
			}
			n, err := io.Copy(io.Discard, rc)
			if err != nil {
				t.Errorf("%s/%s: %v", name, f.Name, err)
			}
			total += n
		}
		if total < 10<<20 || len(data) > 16<<10 {
			t.Errorf("%s: %d bytes expand to %d", name, len(data), total)
		}
	}
}
