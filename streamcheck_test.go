package unarc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc"
)

// TestStreamCheck: Archive and Reader name the checksum of a compressed
// tarball's stream, and nothing for a format that checks each entry.
func TestStreamCheck(t *testing.T) {
	for file, want := range map[string]string{
		"tar/small.tar.gz": "gzip CRC32", "tar/small.tar.xz": "xz CRC64", "tar/gnu.tar": "", "zip/infozip-deflate.zip": "",
	} {
		p := filepath.Join("testdata", file)
		a, err := unarc.OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.StreamCheck(); got != want {
			t.Errorf("%s: Archive.StreamCheck() = %q, want %q", file, got, want)
		}
		a.Close()
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := unarc.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.StreamCheck(); got != want {
			t.Errorf("%s: Reader.StreamCheck() = %q, want %q", file, got, want)
		}
		r.Close()
		f.Close()
	}
}
