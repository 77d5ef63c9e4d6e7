//go:build ignore

// gen writes the inputs of the LZMA test streams into the folder named by
// its argument; make.sh runs it. Everything is deterministic.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

type gen struct {
	g   *rand.ChaCha8
	r   *rand.Rand
	rec int
}

func newGen(seed byte) *gen {
	var s [32]byte
	s[0] = seed
	g := rand.NewChaCha8(s)
	return &gen{g: g, r: rand.New(g)}
}

func (g *gen) random(out []byte, n int) []byte {
	start := len(out)
	out = append(out, make([]byte, n)...)
	g.g.Read(out[start:])
	return out
}

func (g *gen) text(out []byte, n int) []byte {
	for end := len(out) + n; len(out) < end; g.rec++ {
		v := g.r.Uint64() % 10000000
		out = fmt.Appendf(out, "rec=%09d user=u%05d amount=%7d.%02d\n", g.rec, (g.rec*7919)%100000, v/100, v%100)
	}
	return out
}

func (g *gen) run(out []byte, n int) []byte {
	for i := range n {
		out = append(out, byte(i%3))
	}
	return out
}

func main() {
	dir := os.Args[1]
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			panic(err)
		}
	}
	g := newGen(1)
	var b []byte
	b = g.text(b, 20000)
	b = g.random(b, 3000)
	b = g.run(b, 5000)
	b = g.text(b, 12000)
	write("text.bin", b)

	// Every LZMA2 chunk kind between the two files. 64 KiB of random data
	// cannot be compressed within one chunk and is stored (0x01 first,
	// 0x02 later); LZMA chunks after stored ones carry new properties
	// (0xC0) or a state reset (0xA0); the first chunk of chunks2 resets
	// the dictionary (0xE0); the long run crosses the 2 MiB chunk limit
	// (0x80, nothing reset).
	g = newGen(2)
	b = g.random(nil, 66000)
	b = g.text(b, 30000)
	b = g.run(b, 4500000)
	write("chunks.bin", b)

	g = newGen(3)
	b = g.text(nil, 30000)
	b = g.random(b, 66000)
	b = g.text(b, 10000)
	write("chunks2.bin", b)
}
