package rarbits

import (
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkBuild builds the tables of one RAR 2.9 block (main, distance,
// low-distance and repeat codes).
func BenchmarkBuild(b *testing.B) {
	main, dist, low, rep := testutil.KraftLengths(299), testutil.KraftLengths(60), testutil.KraftLengths(17), testutil.KraftLengths(28)
	var h Huffman
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range [][]byte{main, dist, low, rep} {
			if err := h.Build(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
