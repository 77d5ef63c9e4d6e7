package implode

import (
	"container/heap"

	"github.com/go-unarc/unarc/internal/testutil"
)

// A test-only Implode encoder: no tool on this machine writes method 6,
// so the round trips make their streams with it. Greedy LZ77 over the
// chosen window, then length-limited Huffman codes (every symbol gets a
// code, as PKZIP's trees have) written as Implode tree descriptions and
// canonical codes, most significant bit first and inverted.

// bitWriter is the shared LSB-first test writer.
type bitWriter = testutil.LSBWriter

type token struct {
	lit    byte
	length int // 0: literal
	dist   int
}

func parse(data []byte, window, minMatch int) []token {
	maxLen := minMatch + 63 + 255
	var toks []token
	head := map[[2]byte][]int{}
	for i := 0; i < len(data); {
		bestLen, bestDist := 0, 0
		if i+2 <= len(data) {
			cands := head[[2]byte{data[i], data[i+1]}]
			for j := len(cands) - 1; j >= 0 && len(cands)-j < 32; j-- {
				p := cands[j]
				if i-p > window {
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
		if bestLen < minMatch {
			toks = append(toks, token{lit: data[i]})
			bestLen = 1
		} else {
			toks = append(toks, token{length: bestLen, dist: bestDist})
		}
		for k := 0; k < bestLen; k++ {
			if i+k+2 <= len(data) {
				key := [2]byte{data[i+k], data[i+k+1]}
				head[key] = append(head[key], i+k)
			}
		}
		i += bestLen
	}
	return toks
}

type node struct {
	w    int
	sym  int
	l, r *node
}
type nodeHeap []*node

func (h nodeHeap) Len() int           { return len(h) }
func (h nodeHeap) Less(i, j int) bool { return h[i].w < h[j].w }
func (h nodeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)        { *h = append(*h, x.(*node)) }
func (h *nodeHeap) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

// huffLens gives every symbol a code of 1..16 bits (a complete code).
func huffLens(freq []int) []uint8 {
	f := make([]int, len(freq))
	for i := range f {
		f[i] = freq[i] + 1
	}
	for {
		h := &nodeHeap{}
		for s, w := range f {
			*h = append(*h, &node{w: w, sym: s})
		}
		heap.Init(h)
		for h.Len() > 1 {
			a, b := heap.Pop(h).(*node), heap.Pop(h).(*node)
			heap.Push(h, &node{w: a.w + b.w, sym: -1, l: a, r: b})
		}
		lens := make([]uint8, len(f))
		ok := true
		var walk func(n *node, d int)
		walk = func(n *node, d int) {
			if n.sym >= 0 {
				if d > maxLen {
					ok = false
				}
				lens[n.sym] = uint8(max(d, 1))
				return
			}
			walk(n.l, d+1)
			walk(n.r, d+1)
		}
		walk(heap.Pop(h).(*node), 0)
		if ok {
			return lens
		}
		for i := range f {
			f[i] = f[i]/2 + 1
		}
	}
}

// canonical returns each symbol's code (deflate order: by length, then symbol).
func canonical(lens []uint8) []int {
	var count [maxLen + 2]int
	for _, l := range lens {
		count[l]++
	}
	var next [maxLen + 2]int
	code := 0
	count[0] = 0
	for l := 1; l <= maxLen; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]int, len(lens))
	for s, l := range lens {
		codes[s] = next[l]
		next[l]++
	}
	return codes
}

func writeTree(w *bitWriter, lens []uint8) {
	var runs []byte
	for i := 0; i < len(lens); {
		j := i
		for j < len(lens) && lens[j] == lens[i] && j-i < 16 {
			j++
		}
		runs = append(runs, byte(j-i-1)<<4|(lens[i]-1))
		i = j
	}
	w.Put(uint32(len(runs)-1), 8)
	for _, b := range runs {
		w.Put(uint32(b), 8)
	}
}

func putCode(w *bitWriter, code int, l uint8) {
	for i := int(l) - 1; i >= 0; i-- {
		w.Put(uint32((code>>i)&1^1), 1)
	}
}

// implodeData encodes data with an 8 KiB window (bigWindow) or 4 KiB, and
// three trees (literals) or two.
func implodeData(data []byte, bigWindow, literals bool) []byte {
	window, lowBits, minMatch := 4096, uint(6), 2
	if bigWindow {
		window, lowBits = 8192, 7
	}
	if literals {
		minMatch = 3
	}
	toks := parse(data, window, minMatch)
	litF, lenF, distF := make([]int, 256), make([]int, 64), make([]int, 64)
	for _, t := range toks {
		if t.length == 0 {
			litF[t.lit]++
			continue
		}
		lenF[min(t.length-minMatch, 63)]++
		distF[(t.dist-1)>>lowBits]++
	}
	litL, lenL, distL := huffLens(litF), huffLens(lenF), huffLens(distF)
	litC, lenC, distC := canonical(litL), canonical(lenL), canonical(distL)
	var w bitWriter
	if literals {
		writeTree(&w, litL)
	}
	writeTree(&w, lenL)
	writeTree(&w, distL)
	for _, t := range toks {
		if t.length == 0 {
			w.Put(1, 1)
			if literals {
				putCode(&w, litC[t.lit], litL[t.lit])
			} else {
				w.Put(uint32(t.lit), 8)
			}
			continue
		}
		w.Put(0, 1)
		d := t.dist - 1
		w.Put(uint32(d&(1<<lowBits-1)), lowBits)
		h := d >> lowBits
		putCode(&w, distC[h], distL[h])
		l := t.length - minMatch
		s := min(l, 63)
		putCode(&w, lenC[s], lenL[s])
		if s == 63 {
			w.Put(uint32(l-63), 8)
		}
	}
	return w.Flush()
}
