package zip

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// zipOf builds a stored archive with archive/zip's writer: each name
// holds the content "content of " + name.
func zipOf(t *testing.T, names ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, n := range names {
		f, err := w.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("content of " + n))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fakeLocator is the 20 bytes of a Zip64 end of central directory
// locator (APPNOTE 4.3.15) on disk, pointing at off.
func fakeLocator(disk uint32, off uint64) string {
	b := binary.LittleEndian.AppendUint32(nil, sigEnd64Loc)
	b = binary.LittleEndian.AppendUint32(b, disk)
	b = binary.LittleEndian.AppendUint64(b, off)
	return string(binary.LittleEndian.AppendUint32(b, 0x01010101))
}

// fakeRecord is a Zip64 end of central directory record (APPNOTE
// 4.3.14) naming a directory of count entries, size bytes at offset.
func fakeRecord(count, size, offset uint64) string {
	b := binary.LittleEndian.AppendUint32(nil, sigEnd64)
	b = binary.LittleEndian.AppendUint64(b, end64Len-12)
	b = binary.LittleEndian.AppendUint16(b, 45)
	b = binary.LittleEndian.AppendUint16(b, 45)
	b = binary.LittleEndian.AppendUint64(b, 0) // this disk, directory's disk
	b = binary.LittleEndian.AppendUint64(b, count)
	b = binary.LittleEndian.AppendUint64(b, count)
	b = binary.LittleEndian.AppendUint64(b, size)
	return string(binary.LittleEndian.AppendUint64(b, offset))
}

// TestNameBytes: entry names holding a Zip64 locator's signature or a NUL
// (real test archives of other ZIP libraries have both). A locator is
// one only where the layout holds, so a name that ends the central
// directory with "PK\x06\x07" is a name, without a warning (issue 29:
// it was read as a locator, and `t` exited 2); a name ends at its first
// NUL, as 7zz cuts it (it was refused as an insecure path, exit 6).
// Both APIs give the same names and content.
func TestNameBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string // as written
		want  []string // as listed; nil: as written
	}{
		// No NUL in these names: only the locator rule is at work.
		{"locator in last name", []string{"a.txt", "b" + fakeLocator(0x01010101, 0x0101010101010101)}, nil},
		{"locator in first name", []string{"x" + fakeLocator(0x05050505, 0x0505050505050505), "y.txt"}, nil},
		// A locator whose Zip64 record precedes it in the name (found
		// directly before the locator, as for prepended data), naming
		// another directory; a locator whose fields hold NULs.
		{"record and locator in last name", []string{"a.txt", "c" + fakeRecord(9, 999, 1) + fakeLocator(0, 0x76)},
			[]string{"a.txt", "c" + fakeRecord(9, 999, 1)[:5]}},
		{"locator with NULs", []string{"a.txt", "b" + fakeLocator(0, 0x10)}, []string{"a.txt", "b" + fakeLocator(0, 0x10)[:4]}},
		{"NUL", []string{"a.txt", "evil.txt\x00.jpg"}, []string{"a.txt", "evil.txt"}},
		{"NUL then path", []string{"ok\x00/../../etc/passwd", "d/e\x00f"}, []string{"ok", "d/e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == nil {
				tc.want = tc.names
			}
			data := zipOf(t, tc.names...)
			a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if w := a.Warnings(); len(w) != 0 {
				t.Errorf("warnings %v", w)
			}
			if len(a.Entries()) != len(tc.want) {
				t.Fatalf("%d entries, want %d", len(a.Entries()), len(tc.want))
			}
			for i, e := range a.Entries() {
				if e.Name != tc.want[i] {
					t.Errorf("entry %d: name %q, want %q", i, e.Name, tc.want[i])
				}
				b, err := readIndex(a, i)
				if err != nil || string(b) != "content of "+tc.names[i] {
					t.Errorf("entry %d: %q, %v", i, b, err)
				}
			}
			z, err := NewReader(bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			for i := range tc.want {
				e, err := z.Next()
				if err != nil {
					t.Fatalf("Reader entry %d: %v", i, err)
				}
				b, err := io.ReadAll(z)
				if e.Name != tc.want[i] || err != nil || string(b) != "content of "+tc.names[i] {
					t.Errorf("Reader entry %d: %q %q %v", i, e.Name, b, err)
				}
			}
			if _, err := z.Next(); err != io.EOF {
				t.Errorf("Reader after the last entry: %v", err)
			}
		})
	}
}

func readIndex(a *Archive, i int) ([]byte, error) {
	rc, err := a.Open(i)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
