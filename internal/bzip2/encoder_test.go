package bzip2

import (
	"slices"
)

// A small bzip2 encoder for tests: it writes what no tool here writes
// (randomised blocks, blocks of any size, hostile fields). Its blocks
// use a naive BWT, one flat (complete) Huffman code in two tables and
// MSB-first bits.

type bitW struct {
	buf []byte
	n   uint
}

func (w *bitW) put(v uint64, n uint) {
	for n > 0 {
		k := min(n, 8-w.n%8)
		if w.n%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		bitsv := byte(v>>(n-k)) & (1<<k - 1)
		w.buf[len(w.buf)-1] |= bitsv << (8 - w.n%8 - k)
		w.n += k
		n -= k
	}
}

// encOpts shape the test stream.
type encOpts struct {
	level     int  // BZh level (1..9)
	blockRaw  int  // raw bytes per block (default 4000)
	randomise bool // set the randomised bit and randomise the block
	// hostile tweaks, applied to every block
	origPtrAdd int // added to origPtr
	badCRC     bool
	badBlock   int  // 1-based: only this block gets a bad CRC
	gapBits    uint // zero bits written after each block (not valid bzip2)
	badStream  bool
	nGroups    int               // tables to declare (default 2; both written)
	tamper     func([]int) []int // edits the symbols (EOB last) of each block
}

func rle1(raw []byte) []byte {
	var out []byte
	for i := 0; i < len(raw); {
		j := i
		for j < len(raw) && raw[j] == raw[i] && j-i < 255+4 {
			j++
		}
		run := j - i
		if run >= 4 {
			out = append(out, raw[i], raw[i], raw[i], raw[i], byte(run-4))
		} else {
			for range run {
				out = append(out, raw[i])
			}
		}
		i = j
	}
	return out
}

func testEncode(raw []byte, o encOpts) []byte {
	if o.level == 0 {
		o.level = 9
	}
	if o.blockRaw == 0 {
		o.blockRaw = 4000
	}
	w := &bitW{}
	w.put(uint64('B')<<16|uint64('Z')<<8|'h', 24)
	w.put(uint64('0'+o.level), 8)
	var combined uint32
	for off := 0; off < len(raw); off += o.blockRaw {
		chunk := raw[off:min(off+o.blockRaw, len(raw))]
		crc := ^crcUpdate(^uint32(0), chunk)
		combined = (combined<<1 | combined>>31) ^ crc
		if o.badCRC || o.badBlock == off/o.blockRaw+1 {
			crc ^= 1
		}
		encodeBlock(w, rle1(chunk), crc, o)
		w.put(0, o.gapBits)
	}
	w.put(eosMagic, 48)
	if o.badStream {
		combined ^= 0x100
	}
	w.put(uint64(combined), 32)
	return w.buf
}

func encodeBlock(w *bitW, s []byte, crc uint32, o encOpts) {
	s = slices.Clone(s)
	if o.randomise {
		randomise(s)
	}
	n := len(s)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		for k := range n {
			x, y := s[(a+k)%n], s[(b+k)%n]
			if x != y {
				return int(x) - int(y)
			}
		}
		return 0
	})
	last := make([]byte, n)
	origPtr := 0
	for i, r := range idx {
		last[i] = s[(r+n-1)%n]
		if r == 0 {
			origPtr = i
		}
	}
	// MTF and RLE2.
	var used [256]bool
	for _, b := range s {
		used[b] = true
	}
	var mtf []byte
	for b := range 256 {
		if used[b] {
			mtf = append(mtf, byte(b))
		}
	}
	nInUse := len(mtf)
	var syms []int
	zrun := 0
	flush := func() {
		for zrun > 0 {
			zrun--
			syms = append(syms, zrun&1)
			zrun >>= 1
		}
	}
	for _, b := range last {
		j := slices.Index(mtf, b)
		if j == 0 {
			zrun++
			continue
		}
		flush()
		syms = append(syms, j+1)
		copy(mtf[1:j+1], mtf[:j])
		mtf[0] = b
	}
	flush()
	syms = append(syms, nInUse+1)
	if o.tamper != nil {
		syms = o.tamper(syms)
	}
	alpha := nInUse + 2

	// A complete flat code: a symbols of length L-1, the rest of L.
	L := 1
	for 1<<L < alpha {
		L++
	}
	nShort := 1<<L - alpha
	lens := make([]int, alpha)
	for i := range lens {
		lens[i] = L
		if i < nShort {
			lens[i] = L - 1
		}
	}
	codes := make([]uint64, alpha)
	code := uint64(0)
	for l := 1; l <= 20; l++ {
		for i := range alpha {
			if lens[i] == l {
				codes[i] = code
				code++
			}
		}
		code <<= 1
	}

	w.put(blockMagic, 48)
	w.put(uint64(crc), 32)
	if o.randomise {
		w.put(1, 1)
	} else {
		w.put(0, 1)
	}
	w.put(uint64(origPtr+o.origPtrAdd), 24)
	var ranges uint64
	for i := range 16 {
		for j := range 16 {
			if used[i*16+j] {
				ranges |= 0x8000 >> i
			}
		}
	}
	w.put(ranges, 16)
	for i := range 16 {
		if ranges&(0x8000>>i) == 0 {
			continue
		}
		var m uint64
		for j := range 16 {
			if used[i*16+j] {
				m |= 0x8000 >> j
			}
		}
		w.put(m, 16)
	}
	nSel := (len(syms) + groupSize - 1) / groupSize
	ng := 2
	if o.nGroups != 0 {
		ng = o.nGroups
	}
	w.put(uint64(ng), 3)
	w.put(uint64(nSel), 15)
	for range nSel {
		w.put(0, 1)
	}
	for range 2 {
		cur := lens[0]
		w.put(uint64(cur), 5)
		for _, l := range lens {
			for cur < l {
				w.put(2, 2)
				cur++
			}
			for cur > l {
				w.put(3, 2)
				cur--
			}
			w.put(0, 1)
		}
	}
	for _, s := range syms {
		w.put(codes[s], uint(lens[s]))
	}
}

// randomise XORs 1 into the bytes a randomised block flips, written from
// the rule (not with the decoder's walk.randMask): the countdown starts
// at randNums[0] and is reloaded with the next value each time it runs
// out; the byte at which it reads 1 is flipped. So the flips are at
// randNums[0]-2, then randNums[0]+randNums[1]-2, and so on.
func randomise(s []byte) {
	base := 0
	for k := 0; ; k++ {
		at := base + int(randNums[k%512]) - 2
		if at >= len(s) {
			return
		}
		s[at] ^= 1
		base += int(randNums[k%512])
	}
}
