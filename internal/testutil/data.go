package testutil

import (
	"bytes"
	"math/rand/v2"
)

// RandomBytes is n incompressible bytes from seed (PCG, stream 1): the
// same bytes for the same arguments in every test.
func RandomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Words is n bytes of compressible text from seed (PCG, stream 2): words
// drawn from words, a random byte after about one word in 20 and, when
// farEvery > 0, 9000 random bytes after about one word in farEvery (to
// push matches beyond an 8 KiB window).
func Words(n int, seed uint64, words []string, farEvery int) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(20) == 0 {
			b.WriteByte(byte(r.Uint32()))
		}
		if farEvery > 0 && r.IntN(farEvery) == 0 {
			b.Write(RandomBytes(9000, r.Uint64()))
		}
	}
	return b.Bytes()[:n]
}

// KraftLengths is a complete prefix code of n symbols with lengths 4 to
// 15 (a few short codes, many long ones, as a real main table's are):
// the Huffman table builders' benchmark input.
func KraftLengths(n int) []byte {
	l := make([]byte, n)
	// Kraft: the sum of 2^-k over the symbols is 1.
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
