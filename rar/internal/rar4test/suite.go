package rar4test

import (
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// Suite runs the checks every RAR 1.5-2.x decoder package shares over
// the committed archives under testdata/sub whose entries ours keeps (by
// unpack version): each entry against SHA256SUMS, each stream through
// odd Read sizes and a half reader, and (not under -short: tens of
// seconds under -race) every prefix of a stream failing as truncated or
// corrupt.
func Suite(t *testing.T, sub string, ours func(ver byte) bool, newDecoder func() Decoder) {
	keep := func(e Entry) bool { return ours(e.Ver) }
	run := func(name string, check func(t *testing.T, d Decoder)) {
		t.Run(name, func(t *testing.T) {
			d := newDecoder()
			defer d.Close()
			check(t, d)
		})
	}
	run("testdata", func(t *testing.T, d Decoder) { CheckTestdata(t, sub, d, ours, "password") })
	run("readpaths", func(t *testing.T, d Decoder) { ReadPaths(t, d, TestdataStreams(t, sub, keep)) })
	run("truncated", func(t *testing.T, d Decoder) {
		if testutil.Short() {
			t.Skip("slow (tens of seconds under -race); the run without -short covers it")
		}
		Truncated(t, d, TestdataStreams(t, sub, keep))
	})
}
