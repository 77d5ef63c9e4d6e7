package sevenzip

import (
	"io"
	"testing"
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
