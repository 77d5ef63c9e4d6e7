package unpack15

import (
	"github.com/go-unarc/unarc/internal/testutil"
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

func ours(e rar4Entry) bool { return e.Ver == 15 }

// streams are the v15 entries of the committed testdata/rar15 archives
// (from other projects' test suites: testdata/SOURCES), which need
// neither the corpus nor a tool that writes RAR 1.5.
func streams(tb testutil.TB) []rar4Entry {
	return rar4test.TestdataStreams(tb, "rar15", ours)
}

// TestTestdata decodes every entry of the committed archives and checks
// them against SHA256SUMS.
func TestTestdata(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	rar4test.CheckTestdata(t, "rar15", d, func(v byte) bool { return ours(rar4Entry{Ver: v}) }, "password")
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

// FuzzUnpack15: arbitrary packed data, a size and a dictionary from the
// first byte; no panic or hang, known error classes, Read == WriteTo.
func FuzzUnpack15(f *testing.F) {
	body := rar4test.Fuzz(f, func() rar4test.Decoder { return NewDecoder() }, streams(f))
	f.Fuzz(func(t *testing.T, in []byte) { body(t, in) })
}
