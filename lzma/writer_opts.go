package lzma

import (
	"fmt"

	"github.com/go-unarc/unarc/internal/errs"
)

// WriterOption configures an encoder. Options are plain values, like the
// decoder's Option, so passing them allocates nothing; NewWriter and
// NewWriter2 validate them (an impossible value is an error matching
// errs.ErrInvalidOption). Later options override earlier ones; explicit
// settings override the level's whatever their order.
type WriterOption struct {
	kind wOptKind
	v    int64
}

type wOptKind uint8

const (
	wOptLevel wOptKind = iota + 1
	wOptDict
	wOptLiteralBits
	wOptFastBytes
	wOptMatchFinder
	wOptDepth
	wOptThreads
	wOptBlockSize
	wOptEndMarker
	wOptKnownSize
)

// MatchFinderKind selects the match finder.
type MatchFinderKind uint8

const (
	// HC4 is a hash chain over 4-byte hashes (with 2- and 3-byte side
	// tables): fast, used by levels 0-4.
	HC4 MatchFinderKind = iota + 1
	// BT4 is a binary tree over 4-byte hashes: finds the longest matches,
	// used by levels 5-9.
	BT4
)

// Encoder limits.
const (
	// MinDictSize and MaxDictSize bound DictSize.
	MinDictSize = 1 << 12
	MaxDictSize = 3 << 29 // 1.5 GiB
	// MinFastBytes and MaxFastBytes bound FastBytes (matchMaxLen = 273).
	MinFastBytes = 5
	MaxFastBytes = matchMaxLen
)

const matchMaxLen = 273

// Level selects 7-Zip's preset n (0..9, default 5), as LzmaEncProps_Normalize
// of the LZMA SDK 25 maps it for 64-bit builds:
//
//	level  dictionary  fast bytes  match finder  depth  parser
//	0      64 KiB      32          HC4           16     fast
//	1      256 KiB     32          HC4           16     fast
//	2      1 MiB       32          HC4           16     fast
//	3      4 MiB       32          HC4           16     fast
//	4      16 MiB      32          HC4           16     fast
//	5      32 MiB      32          BT4           32     optimal
//	6      64 MiB      32          BT4           32     optimal
//	7      128 MiB     64          BT4           48     optimal
//	8      256 MiB     64          BT4           48     optimal
//	9      256 MiB     64          BT4           48     optimal
//
// With KnownSize the dictionary shrinks to the data (as 7-Zip's reduceSize
// does), so a small input never costs the level's full memory.
//
// Memory: the window is the dictionary plus about 1.5 MiB of look-ahead;
// HC4 adds 4 bytes per dictionary byte (the chain) plus a hash table of
// up to 64 MiB, BT4 8 bytes per dictionary byte (the tree) plus the hash
// table: about 5.5x the dictionary for HC4 and 9.5x for BT4 (level 5:
// about 310 MiB). LZMA2 with Threads(n) multiplies that by the workers.
func Level(n int) WriterOption { return WriterOption{kind: wOptLevel, v: int64(n)} }

// DictSize overrides the level's dictionary size (MinDictSize..MaxDictSize).
func DictSize(n int64) WriterOption { return WriterOption{kind: wOptDict, v: n} }

// LiteralBits sets the literal context bits lc (0..8), literal position
// bits lp (0..4) and position bits pb (0..4); the default is 3, 0, 2.
// LZMA2 requires lc+lp <= 4.
func LiteralBits(lc, lp, pb int) WriterOption {
	if lc < 0 || lc > 255 || lp < 0 || lp > 255 || pb < 0 || pb > 255 {
		return WriterOption{kind: wOptLiteralBits, v: -1}
	}
	return WriterOption{kind: wOptLiteralBits, v: int64(lc) | int64(lp)<<8 | int64(pb)<<16}
}

// FastBytes sets the match length at which the parser stops looking for
// better choices (5..273).
func FastBytes(n int) WriterOption { return WriterOption{kind: wOptFastBytes, v: int64(n)} }

// MatchFinder selects the match finder (HC4 or BT4).
func MatchFinder(m MatchFinderKind) WriterOption {
	return WriterOption{kind: wOptMatchFinder, v: int64(m)}
}

// Depth sets how many candidates the match finder visits per position
// (1..1<<30; 0 = the level's).
func Depth(n int) WriterOption { return WriterOption{kind: wOptDepth, v: int64(n)} }

// Threads sets the number of goroutines of an LZMA2 encoder (1 = one
// stream on the caller's goroutine). The output does not depend on it.
func Threads(n int) WriterOption { return WriterOption{kind: wOptThreads, v: int64(n)} }

// BlockSize sets the size of the independent blocks of a multi-threaded
// LZMA2 encoder (0 = chosen from the dictionary).
func BlockSize(n int64) WriterOption { return WriterOption{kind: wOptBlockSize, v: n} }

// WriteEndMarker makes an LZMA Writer end the stream with the end marker.
// Without KnownSize the marker is always written (a reader could not find
// the end otherwise).
func WriteEndMarker(on bool) WriterOption {
	v := int64(0)
	if on {
		v = 1
	}
	return WriterOption{kind: wOptEndMarker, v: v}
}

// KnownSize declares the number of bytes that will be written (the .lzma
// header's size field; -1 = unknown). It also shrinks the dictionary to
// the data. Close fails when a different number of bytes was written.
func KnownSize(n int64) WriterOption { return WriterOption{kind: wOptKnownSize, v: n} }

// encConfig is what the options resolve to.
type encConfig struct {
	level     int
	dictSize  uint32
	lc, lp    int
	pb        int
	fastBytes int
	mf        MatchFinderKind
	depth     int
	fast      bool // fast (greedy/lazy) parser instead of the optimal one
	threads   int
	blockSize int64
	endMarker bool
	knownSize int64 // -1: unknown
}

func invalid(what string, v int64) error {
	return fmt.Errorf("lzma: %w: %s(%d)", errs.ErrInvalidOption, what, v)
}

// resolve applies opts over the defaults and the level's settings.
func (c *encConfig) resolve(opts []WriterOption, lzma2 bool) error {
	level := 5
	var dict, lits, fb, mf, depth int64 = -1, -1, -1, -1, -1
	c.threads, c.blockSize, c.endMarker, c.knownSize = 1, 0, false, -1
	for _, o := range opts {
		switch o.kind {
		case 0:
		case wOptLevel:
			if o.v < 0 || o.v > 9 {
				return invalid("Level", o.v)
			}
			level = int(o.v)
		case wOptDict:
			if o.v < MinDictSize || o.v > MaxDictSize {
				return invalid("DictSize", o.v)
			}
			dict = o.v
		case wOptLiteralBits:
			lc, lp, pb := o.v&0xFF, o.v>>8&0xFF, o.v>>16&0xFF
			if o.v < 0 || lc > maxLC || lp > maxLP || pb > maxPB || (lzma2 && lc+lp > 4) {
				return invalid("LiteralBits", o.v)
			}
			lits = o.v
		case wOptFastBytes:
			if o.v < MinFastBytes || o.v > MaxFastBytes {
				return invalid("FastBytes", o.v)
			}
			fb = o.v
		case wOptMatchFinder:
			if o.v != int64(HC4) && o.v != int64(BT4) {
				return invalid("MatchFinder", o.v)
			}
			mf = o.v
		case wOptDepth:
			if o.v < 0 || o.v > 1<<30 {
				return invalid("Depth", o.v)
			}
			if o.v > 0 {
				depth = o.v
			}
		case wOptThreads:
			if o.v < 1 || o.v > 1024 {
				return invalid("Threads", o.v)
			}
			c.threads = int(o.v)
		case wOptBlockSize:
			if o.v < 0 || o.v > 1<<40 {
				return invalid("BlockSize", o.v)
			}
			c.blockSize = o.v
		case wOptEndMarker:
			c.endMarker = o.v != 0
		case wOptKnownSize:
			if o.v < -1 {
				return invalid("KnownSize", o.v)
			}
			c.knownSize = o.v
		default:
			return invalid("WriterOption", int64(o.kind))
		}
	}
	c.level = level
	if dict < 0 {
		switch {
		case level <= 4:
			dict = 1 << (level*2 + 16)
		case level <= 8:
			dict = 1 << (level + 20)
		default:
			dict = 1 << 28
		}
		if c.knownSize >= 0 && dict > c.knownSize {
			// 7-Zip's reduceSize: the dictionary need not exceed the data.
			dict = max(c.knownSize, MinDictSize)
		}
	}
	c.dictSize = uint32(dict)
	c.lc, c.lp, c.pb = 3, 0, 2
	if lits >= 0 {
		c.lc, c.lp, c.pb = int(lits&0xFF), int(lits>>8&0xFF), int(lits>>16&0xFF)
	}
	c.fast = level < 5
	c.fastBytes = 32
	if level >= 7 {
		c.fastBytes = 64
	}
	if fb > 0 {
		c.fastBytes = int(fb)
	}
	c.mf = BT4
	if c.fast {
		c.mf = HC4
	}
	if mf > 0 {
		c.mf = MatchFinderKind(mf)
	}
	c.depth = 16 + c.fastBytes/2
	if c.mf == HC4 {
		c.depth /= 2
	}
	if depth > 0 {
		c.depth = int(depth)
	}
	return nil
}

// props returns the LZMA properties of c.
func (c *encConfig) props() Props {
	return Props{LC: c.lc, LP: c.lp, PB: c.pb, DictSize: c.dictSize}
}
