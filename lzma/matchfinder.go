package lzma

import (
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
	kind MatchFinderKind

	bufp  *[]byte // pooled window, nil when buf is borrowed
	buf   []byte
	cur   int // index of the next position to process
	end   int // bytes of valid data in buf
	final bool

	pos        uint32 // absolute position of buf[cur]
	cyclicSize uint32 // dictionary + 1
	cyclicPos  uint32 // pos modulo cyclicSize

	hashp    *[]byte
	hash     []uint32 // hash2 [1<<10] | hash3 [1<<16] | hash4 [hashMask+1]
	sonp     *[]byte
	son      []uint32 // HC4: cyclicSize links; BT4: 2*cyclicSize
	hashMask uint32
	depth    uint32
	nice     int // fast bytes: matches stop growing here
	keep     int // bytes kept before the encoder's position
}

const (
	hash2Size = 1 << 10
	hash3Size = 1 << 16
	hash4Off  = hash2Size + hash3Size
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
	return p, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// hashMaskFor is the main hash table mask for a dictionary (LzFind.c's
// sizing for 4-byte hashes).
func hashMaskFor(dict uint32) uint32 {
	hs := dict - 1
	hs |= hs >> 1
	hs |= hs >> 2
	hs |= hs >> 4
	hs |= hs >> 8
	hs >>= 1
	if hs >= 1<<24 {
		hs >>= 1
	}
	return hs | 0xFFFF
}

// reset prepares mf for a new stream under cfg; window is the buffer
// size, or 0 to borrow the caller's data through borrow().
func (mf *matchFinder) reset(cfg *encConfig, window int) {
	mf.kind = cfg.mf
	mf.depth = uint32(cfg.depth)
	mf.nice = cfg.fastBytes
	mf.keep = int(cfg.dictSize)
	mf.cyclicSize = cfg.dictSize + 1
	mf.hashMask = hashMaskFor(cfg.dictSize)
	if window > 0 {
		if mf.bufp == nil || cap(*mf.bufp) < window {
			pool.Put(mf.bufp)
			mf.bufp = pool.Get(window)
		}
		mf.buf = (*mf.bufp)[:window]
	} else {
		pool.Put(mf.bufp)
		mf.bufp, mf.buf = nil, nil
	}
	nh := hash4Off + int(mf.hashMask) + 1
	if mf.hashp == nil || cap(*mf.hashp) < nh*4 {
		pool.Put(mf.hashp)
		mf.hashp, mf.hash = getUint32s(nh)
	} else {
		mf.hash = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(*mf.hashp))), nh)
	}
	clear(mf.hash)
	ns := int(mf.cyclicSize)
	if mf.kind == BT4 {
		ns *= 2
	}
	if mf.sonp == nil || cap(*mf.sonp) < ns*4 {
		pool.Put(mf.sonp)
		mf.sonp, mf.son = getUint32s(ns)
	} else {
		mf.son = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(*mf.sonp))), ns)
	}
	mf.cur, mf.end, mf.final = 0, 0, false
	mf.pos, mf.cyclicPos = mf.cyclicSize, 0
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
	pool.Put(mf.sonp)
	mf.bufp, mf.hashp, mf.sonp = nil, nil, nil
	mf.buf, mf.hash, mf.son = nil, nil, nil
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
	norm(mf.son)
	mf.pos -= sub
}
