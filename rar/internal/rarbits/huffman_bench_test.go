package rarbits

import "testing"

// benchLengths is a complete code of n symbols with lengths 1..15 spread
// as a real main table's are (a few short codes, many long ones).
func benchLengths(n int) []byte {
	l := make([]byte, n)
	// Kraft: lengths k for symbols chosen so the sum of 2^-k is 1.
	left := uint32(1 << 15) // code space in units of 2^-15
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

// BenchmarkBuild builds the tables of one RAR 2.9 block (main, distance,
// low-distance and repeat codes).
func BenchmarkBuild(b *testing.B) {
	main, dist, low, rep := benchLengths(299), benchLengths(60), benchLengths(17), benchLengths(28)
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
