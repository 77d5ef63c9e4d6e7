package sevenzip

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// readAllEntries reads every entry of a to its end (which verifies its
// CRC) and returns the contents by name.
func readAllEntries(t *testing.T, a *Archive) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for i, e := range a.Entries() {
		rc, err := a.Open(i)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		got[e.Name] = b
	}
	return got
}

// TestLZMAEndMarker (issue 14 item 8): 7zz -m0=LZMA:eos ends the folder's
// LZMA stream with an end marker although the header gives its size;
// the folder (12,288 bytes) fills its size-clamped window exactly, the
// case the decoder used to cut short.
func TestLZMAEndMarker(t *testing.T) {
	a, err := openFile(t, "../testdata/7z/eos_lzma.7z", "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	got := readAllEntries(t, a)
	if len(got["eos-a.txt"]) != 8192 || len(got["eos-b.txt"]) != 4096 {
		t.Fatalf("sizes %d, %d; want 8192, 4096", len(got["eos-a.txt"]), len(got["eos-b.txt"]))
	}
}

// aesCoderProps returns 7zAES properties with the given cycle power, an
// 8-byte salt and a 16-byte IV.
func aesCoderProps(cycles byte) []byte {
	return append([]byte{cycles | 0xC0, 7<<4 | 15}, make([]byte, 8+16)...)
}

// TestKDFOutOfRange (issue 14 item 10): a 7zAES coder whose properties
// 7-Zip refuses (a cycle power above 24, or a property block longer than
// its salt and IV) is ErrUnsupported, as 7-Zip's E_NOTIMPL, before any
// password is asked for: it must not turn into a password prompt (the
// root prompts on ErrPasswordRequired) nor cost key-derivation time.
// Both the data and the encrypted-header paths.
func TestKDFOutOfRange(t *testing.T) {
	hdr := cat([]byte{idHeader, idFilesInfo, 1, idName, 5, 0, 'f', 0, 0, 0, idEmptyStream, 1, 0x80, idEnd, idEnd})
	cases := map[string][]byte{
		"cycles 30 data":        aesFolders(t, 1, 30, func(int) []byte { return []byte{1, 2, 3, 4} }, "pw"),
		"cycles 25 data":        aesFolders(t, 1, 25, func(int) []byte { return []byte{1, 2, 3, 4} }, "pw"),
		"cycles 30 header":      encodedArchive(nil, hdr, []coderSpec{{id: []byte{0x06, 0xF1, 0x07, 0x01}, props: aesCoderProps(30)}}, make([]byte, 32)),
		"props too long header": encodedArchive(nil, hdr, []coderSpec{{id: []byte{0x06, 0xF1, 0x07, 0x01}, props: append(aesCoderProps(19), 0)}}, make([]byte, 32)),
	}
	for name, data := range cases {
		asked := 0
		cfg := &arc.Config{Password: func(*arc.Entry) (string, error) { asked++; return "pw", nil }}
		start := time.Now()
		a, err := openWithCfg(data, cfg)
		if err == nil {
			var rc io.ReadCloser
			if rc, err = a.Open(0); err == nil {
				_, err = io.ReadAll(rc)
				rc.Close()
			}
			a.Close()
		}
		checkOneSentinel(t, name, err, errs.ErrUnsupported)
		if asked != 0 {
			t.Errorf("%s: the password was asked for %d times", name, asked)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %v", name, d)
		}
	}
}

// TestUnnamedEntry (issue 14 item 9): `7zz a -si` stores its one file
// without a name; 7-Zip lists and extracts it under the archive's name
// without the extension, and so do we, instead of an empty name that
// Extract refuses.
func TestUnnamedEntry(t *testing.T) {
	data, err := os.ReadFile("../testdata/7z/stdin.7z")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ archive, want string }{
		{"/backups/stdin.7z", "stdin"},
		{"", "[Content]"},
		{"x.7z.001", "x"},
	} {
		a, err := openWithCfg(data, &arc.Config{Name: c.archive})
		if err != nil {
			t.Fatal(err)
		}
		es := a.Entries()
		if len(es) != 1 || es[0].Name != c.want || es[0].Size != 4096 {
			t.Fatalf("archive %q: entries %v, want one of 4096 bytes named %q", c.archive, es, c.want)
		}
		if b := readAllEntries(t, a); len(b[c.want]) != 4096 {
			t.Errorf("archive %q: read %d bytes", c.archive, len(b[c.want]))
		}
		a.Close()
	}
	// 7-Zip's GetDefaultName2, case by case.
	for archive, want := range map[string]string{
		"a/b/data.7z": "data",
		"DATA.7Z":     "DATA",
		"data.tar.7z": "data.tar",
		"data.bin":    "data",
		"data":        "data~",
		".7z":         ".7z~",
		"dir/":        "[Content]",
		"a.7z.001":    "a",
		"name .7z":    "name",
		"v.7z.002":    "v.7z",
	} {
		if got := unnamedEntry(archive); got != want {
			t.Errorf("unnamedEntry(%q) = %q, want %q", archive, got, want)
		}
	}
	// A stored name that only cleaning empties is not replaced.
	hdr := cat([]byte{idHeader, idFilesInfo, 1, idName, 7, 0, '.', 0, '/', 0, 0, 0, idEmptyStream, 1, 0x80, idEmptyFile, 1, 0x80, idEnd, idEnd})
	a, err := openWithCfg(build7z(nil, hdr), &arc.Config{Name: "x.7z"})
	if err != nil {
		t.Fatal(err)
	}
	if n := a.Entries()[0].Name; n != "" {
		t.Errorf("stored name \"./\" became %q", n)
	}
}
