package unpack20

import (
	"github.com/go-unarc/unarc/internal/testutil"
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

func ours(e rar4Entry) bool { return e.Ver == 20 || e.Ver == 26 }

// streams are the v20 entries of the committed testdata/rar20 archives
// (from other projects' test suites: testdata/SOURCES), which need
// neither the corpus nor a tool that writes RAR 2.0.
func streams(tb testutil.TB) []rar4Entry {
	return rar4test.TestdataStreams(tb, "rar20", ours)
}

// TestTestdata decodes every entry of the committed archives and checks
// them against SHA256SUMS.
func TestTestdata(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	rar4test.CheckTestdata(t, "rar20", d, func(v byte) bool { return ours(rar4Entry{Ver: v}) }, "password")
}

// TestReadPaths decodes each testdata stream through Read with odd buffer
// sizes and a half reader under the decoder, and checks the CRC.
func TestReadPaths(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	rar4test.ReadPaths(t, d, streams(t))
}

// TestTruncated: every prefix of a valid stream fails as truncated or
// corrupt, never silently short.
func TestTruncated(t *testing.T) {
	if testutil.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	d := NewDecoder()
	defer d.Close()
	rar4test.Truncated(t, d, streams(t))
}

// FuzzUnpack20: arbitrary packed data, a size and a dictionary from the
// first byte; no panic or hang, known error classes, Read == WriteTo.
func FuzzUnpack20(f *testing.F) {
	body := rar4test.Fuzz(f, func() rar4test.Decoder { return NewDecoder() }, streams(f))
	f.Fuzz(func(t *testing.T, in []byte) { body(t, in) })
}
