package blake2sp

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// withGeneric runs f with the pure-Go stripes, then restores the
// dispatch.
func withGeneric(f func()) {
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	f()
}

func genericSum(data []byte) (s [Size]byte) {
	withGeneric(func() { s = Sum256(data) })
	return s
}

// writeSplit hashes data in pieces whose lengths come from rng (1 to max
// bytes), so the buffered and the direct paths of Write both run.
func writeSplit(data []byte, rng *rand.Rand, max int) []byte {
	h := New()
	for len(data) > 0 {
		k := min(len(data), 1+rng.IntN(max))
		h.Write(data[:k])
		data = data[k:]
	}
	return h.Sum(nil)
}

// TestStripesMatchGeneric compares the dispatched stripes (AVX2 where the
// CPU has it) with the generic code from random leaf states and counters,
// the counters crossing 2^32 so the high counter word is exercised.
func TestStripesMatchGeneric(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 code path on this machine or build")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, start := range []uint64{0, 64, 1<<32 - 3*64, 1<<32 - 64, 1 << 32, 1<<40 + 7*64} {
		for _, n := range []int{1, 2, 3, 17} {
			var a digest
			for i := range a.h {
				for j := range a.h[i] {
					a.h[i][j] = rng.Uint32()
				}
				a.t[i] = start
			}
			b := a
			p := make([]byte, n*stripe)
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			a.stripes(p)
			b.stripesGeneric(p)
			if a.h != b.h || a.t != b.t {
				t.Fatalf("t=%d, %d stripes: state differs\n got  %x\n want %x", start, n, a.h, b.h)
			}
		}
	}
}

// TestDispatchMatchesGeneric hashes every length 0..2000 and random large
// lengths both ways, in one piece and in odd write splits.
func TestDispatchMatchesGeneric(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 code path on this machine or build")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 1<<20+4321)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	lengths := make([]int, 0, 2020)
	for n := 0; n <= 2000; n++ {
		lengths = append(lengths, n)
	}
	for range 20 {
		lengths = append(lengths, rng.IntN(len(data)+1))
	}
	for _, n := range lengths {
		want := genericSum(data[:n])
		if got := Sum256(data[:n]); got != want {
			t.Fatalf("n=%d: Sum256 %x want %x", n, got, want)
		}
		for _, max := range []int{7, 513, 5000} {
			if got := writeSplit(data[:n], rng, max); !bytes.Equal(got, want[:]) {
				t.Fatalf("n=%d, writes of up to %d: %x want %x", n, max, got, want)
			}
		}
	}
	// The reference shares no code with either path.
	for _, n := range []int{0, 511, 512, 513, 4096, 100003} {
		if got, want := Sum256(data[:n]), reference(data[:n]); got != want {
			t.Fatalf("n=%d: %x, reference %x", n, got, want)
		}
	}
}

// TestStreamAllocs checks that a warm hash allocates nothing per Write.
func TestStreamAllocs(t *testing.T) {
	h := New()
	buf := make([]byte, 4099)
	out := make([]byte, 0, Size)
	allocs := testing.AllocsPerRun(20, func() {
		h.Reset()
		for range 10 {
			h.Write(buf)
		}
		out = h.Sum(out[:0])
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}
