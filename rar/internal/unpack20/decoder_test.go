package unpack20

import (
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

// corpusStreams returns the v20 entries of the shared corpus (skipping
// the test when it is missing).
func corpusStreams(tb testing.TB) []rar4Entry {
	return rar4test.CorpusStreams(tb, func(e rar4Entry) bool { return e.Ver == 20 || e.Ver == 26 })
}

// TestReadPaths decodes each corpus stream through Read with odd buffer
// sizes and a half reader under the decoder, and checks the CRC.
func TestReadPaths(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	rar4test.ReadPaths(t, d, corpusStreams(t))
}

// TestTruncated: every prefix of a valid stream fails as truncated or
// corrupt, never silently short.
func TestTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	d := NewDecoder()
	defer d.Close()
	rar4test.Truncated(t, d, corpusStreams(t))
}

// FuzzUnpack20: arbitrary packed data, a size and a dictionary from the
// first byte; no panic or hang, known error classes, Read == WriteTo.
func FuzzUnpack20(f *testing.F) {
	rar4test.Fuzz(f, func() rar4test.Decoder { return NewDecoder() }, corpusStreams(f))
}
