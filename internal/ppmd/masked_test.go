package ppmd

import (
	"math/rand/v2"
	"testing"
)

// refMaskedSymbol is the plain two-walk form of maskedSymbol (Ppmd7Dec.c,
// Ppmd8Dec.c) that the block sums must agree with.
func refMaskedSymbol(rc *rangeDecoder, st []byte, mask *[256]uint8, sp *see, escFreq uint32) int {
	hiCnt := uint32(0)
	for i := 0; i < len(st); i += stateSize {
		hiCnt += uint32(st[i+1] & mask[st[i]])
	}
	freqSum := escFreq + hiCnt
	if freqSum > rc.rng || freqSum == 0 {
		return symError
	}
	count := rc.threshold(freqSum)
	if count < hiCnt {
		low := uint32(0)
		for i := 0; i < len(st); i += stateSize {
			f := uint32(st[i+1] & mask[st[i]])
			if count-low < f {
				rc.decode(low, f)
				rc.normalize()
				if sp.shift < periodBits {
					sp.count--
					if sp.count == 0 {
						sp.summ <<= 1
						sp.count = uint8(3 << sp.shift)
						sp.shift++
					}
				}
				return i
			}
			low += f
		}
		return symError
	}
	if count >= freqSum {
		return symError
	}
	rc.decode(hiCnt, freqSum-hiCnt)
	sp.summ += uint16(freqSum)
	for i := 0; i < len(st); i += stateSize {
		mask[st[i]] = 0
	}
	return escaped
}

// TestMaskedSymbolBlocks checks maskedSymbol's one-pass block sums against
// the plain walk on random state vectors of every length, with random
// masks and range decoder states, for both range decoders.
func TestMaskedSymbolBlocks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	in := make([]byte, 64)
	for iter := 0; iter < 20000; iter++ {
		n := 1 + iter%256
		syms := rnd.Perm(256)[:n]
		st := make([]byte, n*stateSize)
		for k, s := range syms {
			st[k*stateSize] = byte(s)
			st[k*stateSize+1] = byte(1 + rnd.IntN(124))
			st[k*stateSize+2] = byte(rnd.Uint32())
		}
		var mask [256]uint8
		for k := range mask {
			if rnd.IntN(4) != 0 {
				mask[k] = 0xFF
			}
		}
		for k := range in {
			in[k] = byte(rnd.Uint32())
		}
		rc := rangeDecoder{rng: 1<<24 + rnd.Uint32N(0xFF000000), code: rnd.Uint32(), low: rnd.Uint32(), rar: iter&1 != 0, in: in}
		rc.code %= rc.rng
		sp := see{summ: uint16(rnd.Uint32()), shift: uint8(rnd.IntN(8)), count: uint8(1 + rnd.IntN(8))}
		escFreq := 1 + rnd.Uint32N(200)

		rc2, sp2, mask2 := rc, sp, mask
		var nm uint32
		got := rc.maskedSymbol(st, &mask, &sp, escFreq, &nm)
		want := refMaskedSymbol(&rc2, st, &mask2, &sp2, escFreq)
		if got != want || rc.rng != rc2.rng || rc.code != rc2.code || rc.low != rc2.low || rc.ip != rc2.ip || sp != sp2 || mask != mask2 {
			t.Fatalf("n=%d: got %d rc %+v see %+v, want %d rc %+v see %+v", n, got, rc, sp, want, rc2, sp2)
		}
	}
}

// TestFindState checks the two-states-per-load symbol search against a
// byte walk for every position, including vectors that end at the end of
// the arena (where an 8-byte load would run past it).
func TestFindState(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for pad := 0; pad < 3; pad++ {
			mem := make([]byte, 5+n*stateSize+pad)
			base := uint32(5)
			for k := 0; k < n; k++ {
				mem[base+uint32(k)*stateSize] = byte(10 + k)
				mem[base+uint32(k)*stateSize+1] = byte(10 + k) // a frequency equal to a symbol must not match
			}
			for k := 0; k < n; k++ {
				want := base + uint32(k)*stateSize
				if got := findState(mem, base, byte(10+k)); got != want {
					t.Fatalf("n=%d pad=%d: symbol %d at %d, want %d", n, pad, 10+k, got, want)
				}
			}
		}
	}
}

// TestStateOf checks that the remembered positions are only a guess: a
// stale one (another vector, moved states, an index past the vector)
// still finds the right state.
func TestStateOf(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var u units
	u.mem = make([]byte, 256*stateSize+7)
	for iter := 0; iter < 2000; iter++ {
		n := uint32(1 + rnd.IntN(256))
		stats := uint32(rnd.IntN(7))
		syms := rnd.Perm(256)
		for k := uint32(0); k < n; k++ {
			u.mem[stats+k*stateSize] = byte(syms[k])
		}
		// A stale guess for some symbols, a fresh one for others.
		for k := 0; k < 8; k++ {
			u.symPos[rnd.IntN(256)] = uint8(rnd.IntN(256))
		}
		k := uint32(rnd.IntN(int(n)))
		if got, want := u.stateOf(stats, n, byte(syms[k])), stats+k*stateSize; got != want {
			t.Fatalf("iter %d: state of %d at %d, want %d", iter, syms[k], got, want)
		}
		if u.symPos[syms[k]] != uint8(k) {
			t.Fatalf("iter %d: remembered %d, want %d", iter, u.symPos[syms[k]], k)
		}
	}
}
