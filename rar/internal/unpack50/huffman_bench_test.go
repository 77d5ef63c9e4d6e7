package unpack50

import (
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkBuild builds the four tables of one RAR 5.0 block.
func BenchmarkBuild(b *testing.B) {
	main, dist, low, rep := testutil.KraftLengths(nc), testutil.KraftLengths(dcb), testutil.KraftLengths(ldc), testutil.KraftLengths(rc)
	var t [4]huffTable
	b.ReportAllocs()
	for b.Loop() {
		t[0].build(main, mainQuickBits, 9)
		t[1].build(dist, distQuickBits, 6)
		t[2].build(low, lowQuickBits, 6)
		t[3].build(rep, 8, 6)
	}
}
