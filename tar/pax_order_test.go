package tar

import (
	"archive/tar"
	"bytes"
	"testing"
)

// TestGlobalPAXBadRecordDeterministic: a PAX global header with a bad
// record (an mtime that does not parse) and a good one (path) reads the
// same every time. The fuzzer found archive/tar's reader, and ours after
// it, stopping at the first bad record in random map order, so the
// global header's Name was "global1" in some runs and its raw name in
// others.
func TestGlobalPAXBadRecordDeterministic(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "GlobalHead.0.0",
		PAXRecords: map[string]string{"path": "global1", "comment": "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Size: 0, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	b := buf.Bytes()
	// Make the comment record an mtime that does not parse: "13 comment=x\n"
	// becomes "13 mtime=1\x012\n" (same length, so the record sizes hold;
	// the header's checksum covers only the header block).
	i := bytes.Index(b, []byte("13 comment=x\n"))
	if i < 0 {
		t.Fatal("comment record not found")
	}
	copy(b[i:], "13 mtime=1\x012\n")
	var names = map[string]int{}
	for range 64 {
		var h headerReader
		h.reset(bytes.NewReader(b))
		g, err := h.Next()
		if err != nil {
			t.Fatal(err)
		}
		if g.Typeflag != tar.TypeXGlobalHeader {
			t.Fatalf("first header %q, want the global header", g.Typeflag)
		}
		names[g.Name]++
		h.release()
	}
	if len(names) != 1 {
		t.Fatalf("the global header's name varies from read to read: %v", names)
	}
	if _, ok := names["global1"]; !ok {
		t.Fatalf("global header name %v, want the good path record applied", names)
	}
}
