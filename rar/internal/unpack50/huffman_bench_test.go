package unpack50

import "testing"

// benchLengths is a complete code of n symbols (lengths 4..15).
func benchLengths(n int) []byte {
	l := make([]byte, n)
	left := uint32(1 << 15)
	for i := range l {
		k := byte(4 + i%12)
		for k < 15 && uint32(1)<<(15-k) > left/uint32(n-i) {
			k++
		}
		if uint32(1)<<(15-k) > left {
			break
		}
		l[i] = k
		left -= 1 << (15 - k)
	}
	return l
}

// BenchmarkBuild builds the four tables of one RAR 5.0 block.
func BenchmarkBuild(b *testing.B) {
	main, dist, low, rep := benchLengths(nc), benchLengths(dcb), benchLengths(ldc), benchLengths(rc)
	var t [4]huffTable
	b.ReportAllocs()
	for b.Loop() {
		t[0].build(main, mainQuickBits, 9)
		t[1].build(dist, distQuickBits, 6)
		t[2].build(low, lowQuickBits, 6)
		t[3].build(rep, 8, 6)
	}
}
