package bzip2

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// cycleTable is an inverted block of n positions whose links form the
// given number of cycles (1: what a valid block gives), with random bytes.
func cycleTable(n, cycles int, seed uint64) []uint32 {
	r := rand.New(rand.NewPCG(seed, 3))
	perm := r.Perm(n)
	tt := make([]uint32, n)
	// perm cut into cycles pieces, each linked in a ring
	cut := []int{0}
	for k := 1; k < cycles; k++ {
		cut = append(cut, k*n/cycles)
	}
	cut = append(cut, n)
	for c := 0; c+1 < len(cut); c++ {
		ring := perm[cut[c]:cut[c+1]]
		for i, p := range ring {
			next := ring[(i+1)%len(ring)]
			tt[p] = uint32(next)<<8 | uint32(r.IntN(256))
		}
	}
	return tt
}

func spanBytes(out []byte, spans []span) []byte {
	var b []byte
	for _, sp := range spans {
		b = append(b, out[sp.off:sp.off+sp.n]...)
	}
	return b
}

// TestWalkLanes checks the walk on several chains against the walk on one
// over tables of one cycle (where the lanes must be used) and of several
// (damaged blocks, where the segments cannot chain and the block is
// walked again on one chain), at sizes around walkMin and the largest.
func TestWalkLanes(t *testing.T) {
	sizes := []int{1, 2, 1000, walkMin - 1, walkMin, walkMin + 1, 100_003, 900_000}
	if testing.Short() {
		sizes = sizes[:len(sizes)-1]
	}
	var w walker
	for _, n := range sizes {
		for _, cycles := range []int{1, 2, 7} {
			if cycles > n {
				continue
			}
			tt := cycleTable(n, cycles, uint64(n*10+cycles))
			for _, origPtr := range []int{0, n - 1, n / 3} {
				t.Run(fmt.Sprintf("n=%d/cycles=%d/orig=%d", n, cycles, origPtr), func(t *testing.T) {
					want := make([]byte, n)
					walk1(tt, origPtr, want)
					work := append([]uint32(nil), tt...)
					out := make([]byte, walkCap(n))
					spans := w.walk(work, origPtr, out)
					if got := spanBytes(out, spans); !bytes.Equal(got, want) {
						t.Fatalf("walk differs from the one-chain walk (%d of %d bytes)", len(got), n)
					}
					lanes := len(spans) > 1
					if wantLanes := n >= walkMin && cycles == 1; lanes != wantLanes {
						t.Fatalf("%d spans: lanes used %v, want %v", len(spans), lanes, wantLanes)
					}
				})
			}
		}
	}
}

// TestWalkUnmarkedCycle: a damaged table whose marked positions all lie
// on one cycle of the walk, beside a small cycle without marks, chains
// into segments one cycle long but shorter than the block: the walk goes
// round again, as on one chain.
func TestWalkUnmarkedCycle(t *testing.T) {
	n := 4 * walkMin
	r := rand.New(rand.NewPCG(8, 8))
	x := n / (2 * walkSegs) // between the first two marks
	small := []int{x, x + 1, x + 2}
	var big []int
	for _, p := range r.Perm(n) {
		if p < x || p > x+2 {
			big = append(big, p)
		}
	}
	tt := make([]uint32, n)
	for _, ring := range [][]int{big, small} {
		for i, p := range ring {
			tt[p] = uint32(ring[(i+1)%len(ring)])<<8 | uint32(r.IntN(256))
		}
	}
	origPtr := big[0]
	want := make([]byte, n)
	walk1(tt, origPtr, want)
	var w walker
	out := make([]byte, walkCap(n))
	spans := w.walk(append([]uint32(nil), tt...), origPtr, out)
	if got := spanBytes(out, spans); !bytes.Equal(got, want) {
		t.Fatalf("walk differs from the one-chain walk (%d of %d bytes)", len(got), n)
	}
}

// TestWalkShortOut: an out buffer shorter than walkCap is walked on one
// chain rather than overrun.
func TestWalkShortOut(t *testing.T) {
	n := walkMin * 2
	tt := cycleTable(n, 1, 5)
	want := make([]byte, n)
	walk1(tt, 7, want)
	var w walker
	out := make([]byte, n)
	spans := w.walk(append([]uint32(nil), tt...), 7, out)
	if got := spanBytes(out, spans); !bytes.Equal(got, want) {
		t.Fatal("walk differs")
	}
}

// BenchmarkWalk compares the walk of one 900 k block on the lanes with the
// walk on one chain, on a random cycle (no locality: each step a miss).
func BenchmarkWalk(b *testing.B) {
	n := 900_000
	tt := cycleTable(n, 1, 1)
	out := make([]byte, walkCap(n))
	b.Run("lanes", func(b *testing.B) {
		var w walker
		work := make([]uint32, n)
		b.SetBytes(int64(n))
		for b.Loop() {
			copy(work, tt)
			w.walk(work, 0, out)
		}
	})
	b.Run("one", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			walk1(tt, 0, out[:n])
		}
	})
}

// TestDecoderMem: the decoder scratch counted against MaxMemory covers
// the decoder.
func TestDecoderMem(t *testing.T) {
	if s := unsafe.Sizeof(decoder{}); s > decoderMem {
		t.Fatalf("decoder is %d bytes, decoderMem %d", s, decoderMem)
	}
}

// rle1Plain is the reference: a byte-at-a-time state machine as the
// format describes it.
func rle1Plain(s []byte) []byte {
	var out []byte
	var last byte
	cnt := 0
	for _, b := range s {
		if cnt == 4 {
			for range int(b) {
				out = append(out, last)
			}
			cnt = 0
			continue
		}
		if cnt > 0 && b == last {
			cnt++
		} else {
			last, cnt = b, 1
		}
		out = append(out, b)
	}
	return out
}

// TestBytesOut checks bytesOut (whose fast path copies eight bytes at a
// time when they hold no two equal neighbours) against a plain RLE1
// decoder, over inputs mixing distinct bytes, runs of 2..5 equal bytes
// and counts, cut into spans and read into buffers of random sizes.
func TestBytesOut(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	for trial := range 300 {
		var s []byte
		for len(s) < 2000 {
			switch r.IntN(4) {
			case 0:
				for range r.IntN(30) {
					s = append(s, byte(r.IntN(256)))
				}
			case 1:
				b := byte(r.IntN(4))
				for range 2 + r.IntN(2) {
					s = append(s, b)
				}
			case 2:
				b := byte(r.IntN(4))
				s = append(s, b, b, b, b, byte(r.IntN(6)))
			case 3:
				s = append(s, byte(r.IntN(3)))
			}
		}
		want := rle1Plain(s)
		var spans []span
		for off := 0; off < len(s); {
			n := min(1+r.IntN(40), len(s)-off)
			spans = append(spans, span{uint32(off), uint32(n)})
			off += n
		}
		var o bytesOut
		o.reset(s, spans)
		var got []byte
		buf := make([]byte, 1+r.IntN(100))
		for !o.done() {
			n := o.emit(buf[:1+r.IntN(len(buf))])
			got = append(got, buf[:n]...)
			if len(got) > 10*len(want)+100 {
				break
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("trial %d: %d bytes, want %d", trial, len(got), len(want))
		}
	}
}
