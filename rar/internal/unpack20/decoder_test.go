package unpack20

import (
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

func ours(e rar4Entry) bool { return e.Ver == 20 || e.Ver == 26 }

// streams are the v20 entries of the committed testdata/rar20 archives
// (from other projects' test suites: testdata/SOURCES), which need
// neither the corpus nor a tool that writes RAR 2.0.
func streams(tb testutil.TB) []rar4Entry {
	return rar4test.TestdataStreams(tb, "rar20", ours)
}

// TestDecoder runs the checks the RAR 1.5-2.x decoders share over the
// committed archives: each entry against SHA256SUMS, odd Read sizes and
// a half reader, and every prefix of a stream failing as truncated or
// corrupt.
func TestDecoder(t *testing.T) {
	rar4test.Suite(t, "rar20", func(v byte) bool { return ours(rar4Entry{Ver: v}) }, func() rar4test.Decoder { return NewDecoder() })
}

// FuzzUnpack20: arbitrary packed data, a size and a dictionary from the
// first byte; no panic or hang, known error classes, Read == WriteTo.
func FuzzUnpack20(f *testing.F) {
	body := rar4test.Fuzz(f, func() rar4test.Decoder { return NewDecoder() }, streams(f))
	f.Fuzz(func(t *testing.T, in []byte) { body(t, in) })
}
