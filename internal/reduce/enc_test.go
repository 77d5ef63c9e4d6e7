package reduce

import (
	"sort"

	"github.com/go-unarc/unarc/internal/testutil"
)

// A test-only Reduce encoder: no tool on this machine writes methods 2-5,
// so the round trips make their streams with it. Greedy LZ77 into the
// DLE run layer, then follower sets of the most frequent successors of
// each byte (at most maxN per set; PKZIP used 32) and the probabilistic
// layer over them.

// bitWriter is the shared LSB-first test writer.
type bitWriter = testutil.LSBWriter

// runLayer turns data into the DLE byte stream for a factor.
func runLayer(data []byte, factor int) []byte {
	lmask := 0xFF >> factor
	maxLen := lmask + 255 + 3
	maxDist := (1 << factor) * 256
	var out []byte
	head := map[[3]byte][]int{}
	for i := 0; i < len(data); {
		bestLen, bestDist := 0, 0
		if i+3 <= len(data) {
			k := [3]byte{data[i], data[i+1], data[i+2]}
			cands := head[k]
			for j := len(cands) - 1; j >= 0 && len(cands)-j < 64; j-- {
				p := cands[j]
				if i-p > maxDist {
					break
				}
				l := 0
				for i+l < len(data) && l < maxLen && data[p+l] == data[i+l] {
					l++
				}
				if l > bestLen {
					bestLen, bestDist = l, i-p
				}
			}
		}
		v := 0
		if bestLen >= 3 {
			v = (bestDist-1)>>8<<(8-factor) | min(bestLen-3, lmask)
		}
		if bestLen < 3 || v == 0 {
			// DLE,0 is a literal DLE, so a match whose V byte would be 0
			// (length 3, distance up to 256) goes out as a literal.
			if data[i] == dle {
				out = append(out, dle, 0)
			} else {
				out = append(out, data[i])
			}
			bestLen = 1
		} else {
			out = append(out, dle, byte(v))
			if bestLen-3 >= lmask {
				out = append(out, byte(bestLen-3-lmask))
			}
			out = append(out, byte(bestDist-1))
		}
		for k := 0; k < bestLen; k++ {
			if i+k+3 <= len(data) {
				key := [3]byte{data[i+k], data[i+k+1], data[i+k+2]}
				head[key] = append(head[key], i+k)
			}
		}
		i += bestLen
	}
	return out
}

func reduceData(data []byte, factor, maxN int) []byte {
	run := runLayer(data, factor)
	var freq [256][256]int
	last := byte(0)
	for _, c := range run {
		freq[last][c]++
		last = c
	}
	var sets [256][]byte
	for j := range 256 {
		var cands []int
		for c := range 256 {
			if freq[j][c] > 0 {
				cands = append(cands, c)
			}
		}
		sort.SliceStable(cands, func(a, b int) bool { return freq[j][cands[a]] > freq[j][cands[b]] })
		n := min(len(cands), maxN)
		for _, c := range cands[:n] {
			sets[j] = append(sets[j], byte(c))
		}
	}
	var w bitWriter
	for j := 255; j >= 0; j-- {
		w.Put(uint32(len(sets[j])), 6)
		for _, c := range sets[j] {
			w.Put(uint32(c), 8)
		}
	}
	last = 0
	for _, c := range run {
		s := sets[last]
		idx := -1
		for i, f := range s {
			if f == c {
				idx = i
				break
			}
		}
		switch {
		case len(s) == 0:
			w.Put(uint32(c), 8)
		case idx < 0:
			w.Put(1, 1)
			w.Put(uint32(c), 8)
		default:
			w.Put(0, 1)
			w.Put(uint32(idx), uint(bitsFor[len(s)]))
		}
		last = c
	}
	return w.Flush()
}
