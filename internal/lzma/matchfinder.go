package lzma

import (
	"hash/crc32"
	"unsafe"

	"github.com/go-unarc/unarc/internal/pool"
)

// matchFinder owns the encoder's window and finds matches in it.
//
// The window buf holds the stream from some point before the encoder's
// position up to end. cur is the next position the match finder will
// process; the encoder trails it by the parser's look-ahead. Positions
// in the hash tables are absolute (pos), starting at cyclicSize so that a
// zero entry is never a valid candidate, and are normalised (shifted
// down) before they would overflow, so streams beyond 4 GiB work.
type matchFinder struct {
	kind      MatchFinderKind
	hashBytes int // bytes hashed for the main table: 4, or 5 for HC5

	bufp  *[]byte // pooled window, nil when buf is borrowed
	buf   []byte
	cur   int // index of the next position to process
	end   int // bytes of valid data in buf
	final bool

	pos        uint32 // absolute position of buf[cur]
	cyclicSize uint32 // dictionary + 1
	cyclicPos  uint32 // pos modulo cyclicSize

	hashp    *[]byte
	hash     []uint32 // the 4-byte hash heads [hashMask+1]
	sidep    *[]byte
	side     []uint32 // the 2-byte [hash2Size] and 3-byte [hash3Size] hash heads
	sonp     *[]byte
	son      []uint32 // HC4: cyclicSize links; BT4: 2*cyclicSize
	hashMask uint32
	depth    uint32
	nice     int // fast bytes: matches stop growing here
	keep     int // bytes kept before the encoder's position
	sink     uint32
}

const (
	hash2Size = 1 << 10
	hash3Size = 1 << 16
	sideSize  = hash2Size + hash3Size
)

// lookAhead is what the parser needs after the match finder's position
// to work without the end of the stream in sight: one optimum run of
// kNumOpts positions plus the longest match twice.
const lookAhead = kNumOpts + 2*matchMaxLen + 16

const kNumOpts = 1 << 11

// getUint32s returns a pooled []uint32 of n elements (from pool's byte
// classes, whose large buffers are 8-byte aligned).
func getUint32s(n int) (*[]byte, []uint32) {
	p := pool.Get(n * 4)
	b := *p
	pool.AdviseHuge(b[:cap(b)])
	return p, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// reuseUint32s returns p viewed as n uint32s when it is large enough,
// else a new pooled slice (p goes back to the pool).
func reuseUint32s(p *[]byte, n int) (*[]byte, []uint32) {
	if p == nil || cap(*p) < n*4 {
		pool.Put(p)
		return getUint32s(n)
	}
	return p, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(*p))), n)
}

// hashMaskFor is the main hash table mask for a dictionary (LzFind.c's
// sizing for 4-byte hashes).
func hashMaskFor(dict uint32, hashBytes int) uint32 {
	hs := dict - 1
	hs |= hs >> 1
	hs |= hs >> 2
	hs |= hs >> 4
	hs |= hs >> 8
	hs >>= 1
	if hs >= 1<<24 {
		hs >>= 1
	}
	hs |= 0xFFFF
	if hashBytes >= 5 {
		hs |= 256<<10 - 1
	}
	return hs
}

// reset prepares mf for a new stream under cfg; window is the buffer
// size, or 0 to borrow the caller's data through borrow().
func (mf *matchFinder) reset(cfg *encConfig, window int) {
	mf.kind = cfg.mf
	mf.hashBytes = 4
	if mf.kind == HC5 {
		mf.hashBytes = 5
	}
	mf.depth = uint32(cfg.depth)
	mf.nice = cfg.fastBytes
	mf.keep = int(cfg.dictSize)
	// Distances reach dictSize - 1 (7-Zip's reach dictSize): so the tree
	// of a power-of-two dictionary fills its pool class exactly.
	mf.cyclicSize = cfg.dictSize
	mf.hashMask = hashMaskFor(cfg.dictSize, mf.hashBytes)
	if window > 0 {
		if mf.bufp == nil || cap(*mf.bufp) < window {
			pool.Put(mf.bufp)
			mf.bufp = pool.Get(window)
			pool.AdviseHuge((*mf.bufp)[:cap(*mf.bufp)])
		}
		mf.buf = (*mf.bufp)[:cap(*mf.bufp)] // the class's rounding is free room
	} else {
		pool.Put(mf.bufp)
		mf.bufp, mf.buf = nil, nil
	}
	mf.hashp, mf.hash = reuseUint32s(mf.hashp, int(mf.hashMask)+1)
	clear(mf.hash)
	mf.sidep, mf.side = reuseUint32s(mf.sidep, sideSize)
	clear(mf.side)
	ns := int(mf.cyclicSize)
	if mf.kind == BT4 {
		ns *= 2
	}
	mf.sonp, mf.son = reuseUint32s(mf.sonp, ns)
	mf.cur, mf.end, mf.final = 0, 0, false
	mf.pos, mf.cyclicPos = mf.cyclicSize, 0
	if testStartPos > mf.cyclicSize {
		mf.pos = testStartPos
	}
}

// borrow makes src the window (all of the stream, no copy).
func (mf *matchFinder) borrow(src []byte) {
	mf.buf = src
	mf.end = len(src)
	mf.final = true
}

// release returns the pooled arrays.
func (mf *matchFinder) release() {
	pool.Put(mf.bufp)
	pool.Put(mf.hashp)
	pool.Put(mf.sidep)
	pool.Put(mf.sonp)
	mf.bufp, mf.hashp, mf.sidep, mf.sonp = nil, nil, nil, nil
	mf.buf, mf.hash, mf.side, mf.son = nil, nil, nil, nil
}

// avail is the number of bytes from cur to the end of the data.
func (mf *matchFinder) avail() int { return mf.end - mf.cur }

// write copies as much of p as fits after the data.
func (mf *matchFinder) write(p []byte) int {
	n := copy(mf.buf[mf.end:], p)
	mf.end += n
	return n
}

// shift moves the data down so that keep bytes stay before index lo,
// making room for more; it returns by how much the indices moved.
func (mf *matchFinder) shift(lo, keep int) int {
	off := lo - keep
	if off <= 0 {
		return 0
	}
	copy(mf.buf, mf.buf[off:mf.end])
	mf.cur -= off
	mf.end -= off
	return off
}

// movePos advances one position, normalising before pos overflows.
func (mf *matchFinder) movePos() {
	mf.cur++
	mf.pos++
	mf.cyclicPos++
	if mf.cyclicPos == mf.cyclicSize {
		mf.cyclicPos = 0
	}
	if mf.pos == 0xFFFFFFFF-matchMaxLen {
		mf.normalize()
	}
}

// normalize subtracts from every stored position so pos becomes
// cyclicSize again; entries older than the dictionary become 0.
func (mf *matchFinder) normalize() {
	sub := mf.pos - mf.cyclicSize
	norm := func(a []uint32) {
		for i, v := range a {
			if v <= sub {
				a[i] = 0
			} else {
				a[i] = v - sub
			}
		}
	}
	norm(mf.hash)
	norm(mf.side)
	norm(mf.son)
	mf.pos -= sub
}

// crcTable drives the hashes (LzFind.c's scheme: with it, a 2- or 3-byte
// hash hit whose first byte matches matches in all its bytes).
var crcTable = crc32.MakeTable(crc32.IEEE)

// hashes returns the 2-byte, 3-byte and main hash of the bytes at b
// (hashBytes of them).
func (mf *matchFinder) hashes(b []byte) (uint32, uint32, uint32) {
	_ = b[3]
	t := crcTable[b[0]] ^ uint32(b[1])
	h2 := t & (hash2Size - 1)
	t ^= uint32(b[2]) << 8
	h3 := t & (hash3Size - 1)
	t ^= crcTable[b[3]] << 5
	if mf.hashBytes == 5 {
		t ^= crcTable[b[4]] << 10
	}
	return h2, h3, t & mf.hashMask
}

// touchNext loads the next position's hash head early: the load misses
// the cache, and issued now it overlaps with the tree walk of this
// position instead of stalling the next one (Go has no prefetch). Only
// the tree has a walk long enough to hide it; for the chains it is cost.
func (mf *matchFinder) touchNext() {
	if n := mf.cur + 1 + mf.hashBytes; n <= mf.end {
		_, _, hv := mf.hashes(mf.buf[n-mf.hashBytes : n])
		mf.sink = mf.hash[hv]
	}
}

// movePosEmpty advances past a position too close to the end to hash,
// leaving an empty node so the chain or tree stays sound if more data
// comes later (after a Flush).
func (mf *matchFinder) movePosEmpty() {
	if mf.kind == BT4 {
		mf.son[2*mf.cyclicPos] = 0
		mf.son[2*mf.cyclicPos+1] = 0
	} else {
		mf.son[mf.cyclicPos] = 0
	}
	mf.movePos()
}

// getMatches stores the matches at the current position in d as (length,
// distance-1) pairs of increasing length, at most the fast-bytes length
// (and what is available), advances one position and returns the number
// of values stored (twice the pairs).
func (mf *matchFinder) getMatches(d []uint32) int {
	lenLimit := min(mf.nice, mf.avail())
	nb := mf.hashBytes
	if lenLimit < nb {
		mf.movePosEmpty()
		return 0
	}
	buf := mf.buf
	cur := mf.cur
	h2, h3, hv := mf.hashes(buf[cur : cur+nb])
	side := mf.side[:sideSize]
	pos := mf.pos
	d2 := pos - side[h2]
	d3 := pos - side[hash2Size+h3]
	curMatch := mf.hash[hv]
	side[h2] = pos
	side[hash2Size+h3] = pos
	mf.hash[hv] = pos
	if mf.kind == BT4 {
		mf.touchNext()
	}
	cs := mf.cyclicSize
	n := 0
	maxLen := nb - 1
	found := false
	if d2 < cs && buf[cur-int(d2)] == buf[cur] {
		d[0], d[1] = 2, d2-1
		n = 2
		if buf[cur-int(d2)+2] == buf[cur+2] {
			found = true
		} else if d3 < cs && buf[cur-int(d3)] == buf[cur] {
			d2 = d3
			d[3] = d3 - 1
			n = 4
			found = true
		}
	} else if d3 < cs && buf[cur-int(d3)] == buf[cur] {
		d2 = d3
		d[1] = d3 - 1
		n = 2
		found = true
	}
	if found && nb == 5 {
		// HC5: the 2/3-byte hits give length 3 unless byte 3 matches
		// too; the chain then only reports matches longer than 4.
		d[n-2] = 3
		found = buf[cur-int(d2)+3] == buf[cur+3]
	}
	if found {
		back := cur - int(d2)
		for maxLen < lenLimit && buf[back+maxLen] == buf[cur+maxLen] {
			maxLen++
		}
		d[n-2] = uint32(maxLen)
		if maxLen == lenLimit {
			if mf.kind == BT4 {
				mf.btSkip(lenLimit, curMatch)
			} else {
				mf.son[mf.cyclicPos] = curMatch
			}
			mf.movePos()
			return n
		}
	}
	if mf.kind == BT4 {
		n = mf.btMatches(lenLimit, curMatch, d, n, maxLen)
	} else {
		n = mf.hcMatches(lenLimit, curMatch, d, n, maxLen)
	}
	mf.movePos()
	return n
}

// skip advances n positions, inserting them into the chain or tree.
func (mf *matchFinder) skip(n int) {
	for ; n > 0; n-- {
		lenLimit := min(mf.nice, mf.avail())
		if lenLimit < mf.hashBytes {
			mf.movePosEmpty()
			continue
		}
		h2, h3, hv := mf.hashes(mf.buf[mf.cur : mf.cur+mf.hashBytes])
		side := mf.side[:sideSize]
		curMatch := mf.hash[hv]
		side[h2] = mf.pos
		side[hash2Size+h3] = mf.pos
		mf.hash[hv] = mf.pos
		if mf.kind == BT4 {
			mf.touchNext()
		}
		if mf.kind == BT4 {
			mf.btSkip(lenLimit, curMatch)
		} else {
			mf.son[mf.cyclicPos] = curMatch
		}
		mf.movePos()
	}
}

// hcMatches walks the hash chain from curMatch (LzFind.c Hc_GetMatchesSpec).
func (mf *matchFinder) hcMatches(lenLimit int, curMatch uint32, d []uint32, n, maxLen int) int {
	buf := mf.buf
	cur := mf.cur
	son := mf.son
	cp := mf.cyclicPos
	cs := mf.cyclicSize
	pos := mf.pos
	son[cp] = curMatch
	win := buf[cur : cur+lenLimit]
	for cut := mf.depth; cut > 0; cut-- {
		if curMatch == 0 {
			break
		}
		delta := pos - curMatch
		if delta >= cs {
			break
		}
		i := cp - delta
		if cp < delta {
			i += cs
		}
		curMatch = son[i]
		back := buf[cur-int(delta):]
		if back[maxLen] != win[maxLen] {
			continue
		}
		l := 0
		for l < len(win) && back[l] == win[l] {
			l++
		}
		if l > maxLen {
			maxLen = l
			d[n], d[n+1] = uint32(l), delta-1
			n += 2
			if l == lenLimit {
				break
			}
		}
	}
	return n
}

// The tree walks below are the encoder's hottest loops; they index the
// window and the tree through unsafe pointers, without bounds checks.
// Every index is in range by construction: a candidate is less than
// cyclicSize (<= the dictionary) behind cur and the window keeps the
// dictionary before the encoder's position (<= cur); lengths stay below
// lenLimit <= avail; tree indices are 2*i+{0,1} with i < cyclicSize.
// getMatches checks the two bounds the loops rely on before calling them.

func byteAt(p unsafe.Pointer, i int) byte { return *(*byte)(unsafe.Add(p, i)) }

func u32At(p unsafe.Pointer, i uint32) *uint32 { return (*uint32)(unsafe.Add(p, uintptr(i)*4)) }

// btMatches searches and rebuilds the binary tree (LzFind.c
// GetMatchesSpec1).
func (mf *matchFinder) btMatches(lenLimit int, curMatch uint32, d []uint32, n, maxLen int) int {
	cur := mf.cur
	_ = mf.buf[cur+lenLimit-1]
	_ = mf.son[2*mf.cyclicPos+1]
	bp := unsafe.Pointer(unsafe.SliceData(mf.buf))
	wp := unsafe.Add(bp, cur)
	sp := unsafe.Pointer(unsafe.SliceData(mf.son))
	cp := mf.cyclicPos
	cs := mf.cyclicSize
	pos := mf.pos
	ptr0 := 2*cp + 1
	ptr1 := 2 * cp
	len0, len1 := 0, 0
	cmCheck := pos - cs
	for cut := mf.depth; cut > 0 && cmCheck < curMatch; cut-- {
		delta := pos - curMatch
		i := cp - delta
		if cp < delta {
			i += cs
		}
		pair := 2 * i
		back := unsafe.Add(wp, -int(delta))
		l := min(len0, len1)
		if byteAt(back, l) == byteAt(wp, l) {
			l++
			for l < lenLimit && byteAt(back, l) == byteAt(wp, l) {
				l++
			}
			if l > maxLen {
				maxLen = l
				d[n], d[n+1] = uint32(l), delta-1
				n += 2
				if l == lenLimit {
					*u32At(sp, ptr1) = *u32At(sp, pair)
					*u32At(sp, ptr0) = *u32At(sp, pair+1)
					return n
				}
			}
		}
		if byteAt(back, l) < byteAt(wp, l) {
			*u32At(sp, ptr1) = curMatch
			curMatch = *u32At(sp, pair+1)
			ptr1 = pair + 1
			len1 = l
		} else {
			*u32At(sp, ptr0) = curMatch
			curMatch = *u32At(sp, pair)
			ptr0 = pair
			len0 = l
		}
	}
	*u32At(sp, ptr0), *u32At(sp, ptr1) = 0, 0
	return n
}

// btSkip inserts the current position into the tree (LzFind.c
// SkipMatchesSpec). Deliberate copy of btMatches without the match
// output: LzFind.c keeps the two apart too, and a flag in the tree walk
// (the encoder's innermost loop) costs a branch per node.
func (mf *matchFinder) btSkip(lenLimit int, curMatch uint32) {
	cur := mf.cur
	_ = mf.buf[cur+lenLimit-1]
	_ = mf.son[2*mf.cyclicPos+1]
	bp := unsafe.Pointer(unsafe.SliceData(mf.buf))
	wp := unsafe.Add(bp, cur)
	sp := unsafe.Pointer(unsafe.SliceData(mf.son))
	cp := mf.cyclicPos
	cs := mf.cyclicSize
	pos := mf.pos
	ptr0 := 2*cp + 1
	ptr1 := 2 * cp
	len0, len1 := 0, 0
	cmCheck := pos - cs
	for cut := mf.depth; cut > 0 && cmCheck < curMatch; cut-- {
		delta := pos - curMatch
		i := cp - delta
		if cp < delta {
			i += cs
		}
		pair := 2 * i
		back := unsafe.Add(wp, -int(delta))
		l := min(len0, len1)
		if byteAt(back, l) == byteAt(wp, l) {
			l++
			for l < lenLimit && byteAt(back, l) == byteAt(wp, l) {
				l++
			}
			if l == lenLimit {
				*u32At(sp, ptr1) = *u32At(sp, pair)
				*u32At(sp, ptr0) = *u32At(sp, pair+1)
				return
			}
		}
		if byteAt(back, l) < byteAt(wp, l) {
			*u32At(sp, ptr1) = curMatch
			curMatch = *u32At(sp, pair+1)
			ptr1 = pair + 1
			len1 = l
		} else {
			*u32At(sp, ptr0) = curMatch
			curMatch = *u32At(sp, pair)
			ptr0 = pair
			len0 = l
		}
	}
	*u32At(sp, ptr0), *u32At(sp, ptr1) = 0, 0
}

// testStartPos, when set by a test, is where positions start, so
// normalisation happens early in a short stream.
var testStartPos uint32
