package main

import (
	"bytes"
	bin "encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarningExits: a warning that cannot change what is extracted (it
// matches unarc.ErrNotice: a ZIP's redundant record that disagrees with
// the one every reader uses, unknown bytes between its records) is
// printed and t exits 0, as 7zz does; a warning that can (the end record
// counts more entries than the directory holds: a reader trusting the
// count lists others) still exits 2. A spanned set missing a disk that
// no listed entry needs is such a notice. docs/cli.md lists the classes.
func TestWarningExits(t *testing.T) {
	le := bin.LittleEndian
	read := func(name string) []byte {
		b, err := os.ReadFile(testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	eocd := func(b []byte) int { return bytes.LastIndex(b, []byte("PK\x05\x06")) }

	// Info-ZIP's Zip64 archive with its 32-bit end record made complete
	// (the directory offset filled in) and the Zip64 record's directory
	// size changed: the records disagree, the 32-bit one names the
	// directory, and 7zz lists and tests it, exiting 0.
	z64 := read("zip/infozip-zip64.zip")
	e := eocd(z64)
	z := bytes.LastIndex(z64, []byte("PK\x06\x06"))
	le.PutUint32(z64[e+16:], uint32(le.Uint64(z64[z+48:])))
	le.PutUint64(z64[z+40:], le.Uint64(z64[z+40:])+100)

	// Ten unknown bytes between the central directory and its end record.
	store := read("zip/infozip-store.zip")
	e = eocd(store)
	junk := append(append(bytes.Clone(store[:e]), "0123456789"...), store[e:]...)

	// The end record counts one entry more than the directory holds.
	count := read("zip/infozip-store.zip")
	e = eocd(count)
	le.PutUint16(count[e+8:], le.Uint16(count[e+8:])+1)
	le.PutUint16(count[e+10:], le.Uint16(count[e+10:])+1)

	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		want int
		warn string
	}{
		{"zip64-disagrees.zip", z64, 0, "Zip64 end record disagrees"},
		{"junk-before-end.zip", junk, 0, "10 bytes of unknown data"},
		{"count.zip", count, 2, "the end record says"},
		// A spanned set's last disk, its first disk missing: no listed
		// entry needs it (exit 0), or one does (exit 2, the others read).
		{"spanned-lastdisk-unneeded.zip", read("zip/spanned-lastdisk-unneeded.zip"), 0, "missing volume spanned-lastdisk-unneeded.z01"},
		{"spanned-lastdisk.zip", read("zip/spanned-lastdisk.zip"), 2, "missing volume spanned-lastdisk.z01"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI("t", p)
		if code != c.want || !strings.Contains(stderr, c.warn) || c.want == 0 && !strings.Contains(stderr, "warning: ") {
			t.Errorf("%s: exit %d (want %d), stderr:\n%s\nstdout:\n%s", c.name, code, c.want, stderr, stdout)
		}
	}
	// x of the set whose missing disk one entry needs extracts the other.
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("x", "-o", out, filepath.Join(dir, "spanned-lastdisk.zip")); code != 2 {
		t.Errorf("x spanned-lastdisk.zip: exit %d, want 2\n%s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "small.txt")); err != nil || string(b) != "small file on the last disk\n" {
		t.Errorf("x spanned-lastdisk.zip: small.txt %q, %v", b, err)
	}
}
