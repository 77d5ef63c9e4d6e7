package zip

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"testing"
)

// TestDirModeKept: a directory whose Unix mode the central directory
// states keeps it, however closed (040000 became 0755, 040644 0755);
// a directory made by its name alone (a file's 0644, or no mode) still
// gets the search bits, and DOS attributes still give 0755.
func TestDirModeKept(t *testing.T) {
	type dirCase struct {
		name   string
		attr   uint32 // external attributes
		madeBy uint16 // creator host in the high byte
		want   fs.FileMode
	}
	cases := []dirCase{
		{"d000/", 0o040000 << 16, 3 << 8, fs.ModeDir},
		{"d070/", 0o040070 << 16, 3 << 8, fs.ModeDir | 0o070},
		{"d600/", 0o040600 << 16, 3 << 8, fs.ModeDir | 0o600},
		{"d644/", 0o040644 << 16, 3 << 8, fs.ModeDir | 0o644},
		{"d1777/", 0o041777 << 16, 3 << 8, fs.ModeDir | fs.ModeSticky | 0o777},
		{"file644/", 0o100644 << 16, 3 << 8, fs.ModeDir | 0o755},
		{"bare644/", 0o644 << 16, 3 << 8, fs.ModeDir | 0o755},
		{"bare700/", 0o700 << 16, 3 << 8, fs.ModeDir | 0o700},
		{"dos/", 0x10, 0, fs.ModeDir | 0o755},
		{"dosro/", 0x11, 0, fs.ModeDir | 0o555},
		{"noattr/", 0, 0, fs.ModeDir | 0o755},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, c := range cases {
		h := &zip.FileHeader{Name: c.name, Method: zip.Store, CreatorVersion: c.madeBy | 20, ExternalAttrs: c.attr}
		if _, err := zw.CreateRaw(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	es := a.Entries()
	if len(es) != len(cases) {
		t.Fatalf("%d entries, want %d", len(es), len(cases))
	}
	for i, c := range cases {
		if es[i].Mode != c.want {
			t.Errorf("%s (attr %#o, host %d): mode %v, want %v", c.name, c.attr>>16, c.madeBy>>8, es[i].Mode, c.want)
		}
	}
}
