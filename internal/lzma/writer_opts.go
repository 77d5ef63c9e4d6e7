package lzma

import (
	"fmt"
	"math/bits"
	"unsafe"

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
	wOptMaxMemory
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
	// HC5 is a hash chain over 5-byte hashes (4-byte matches only come
	// from the side tables): faster than HC4 on text, 7-Zip's choice
	// for levels 0-4.
	HC5
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
// of the LZMA SDK 25 maps it for 64-bit builds. Memory is what one
// encoder allocates (EncoderMemory; LZMA2 adds about 4 MiB):
//
//	level  dictionary  fast bytes  match finder  depth  parser   memory
//	0      64 KiB      32          HC5           16     fast       3 MiB
//	1      256 KiB     32          HC5           16     fast       4 MiB
//	2      1 MiB       32          HC5           16     fast      10 MiB
//	3      4 MiB       32          HC5           16     fast      32 MiB
//	4      16 MiB      32          HC5           16     fast     128 MiB
//	5      32 MiB      32          BT4           32     optimal  384 MiB
//	6      64 MiB      32          BT4           32     optimal  704 MiB
//	7      128 MiB     64          BT4           48     optimal  1.4 GiB
//	8      256 MiB     64          BT4           48     optimal  2.8 GiB
//	9      256 MiB     64          BT4           48     optimal  2.8 GiB
//
// With KnownSize the dictionary shrinks to the data (as 7-Zip's reduceSize
// does), so a small input never costs the level's full memory; MaxMemory
// refuses settings above a limit. The window is the dictionary plus room
// to refill and look ahead; HC4 adds 4 bytes per dictionary byte (the
// chain), BT4 8 (the tree), both a hash table of up to 2 bytes per
// dictionary byte; sizes round up to powers of two as the pools hand
// them out.
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

// MaxMemory makes NewWriter, NewWriter2 and Reset fail with an error
// matching errs.ErrLimit when the encoder would need more than n bytes
// (EncoderMemory; 0 = no limit). The 7z writer passes arc.Limits'
// MaxMemory here.
func MaxMemory(n int64) WriterOption { return WriterOption{kind: wOptMaxMemory, v: n} }

// EncoderMemory returns the bytes an encoder with opts allocates (LZMA2
// if lzma2, else LZMA, one thread): window, match finder tables, models,
// parser state and buffers, as the pools hand them out.
func EncoderMemory(lzma2 bool, opts ...WriterOption) (int64, error) {
	var c encConfig
	if err := c.resolve(opts, lzma2); err != nil {
		return 0, err
	}
	return c.memory(lzma2), nil
}

// poolClass is the capacity the pool hands out for n bytes.
func poolClass(n int64) int64 {
	if n <= 256 {
		return 256
	}
	if n > 1<<30 {
		return n
	}
	return 1 << bits.Len64(uint64(n-1))
}

// memory is the encoder's allocation for c (see EncoderMemory).
func (c *encConfig) memory(lzma2 bool) int64 {
	hb := 4
	if c.mf == HC5 {
		hb = 5
	}
	mask := int64(hashMaskFor(c.dictSize, hb))
	son := int64(c.dictSize) * 4
	if c.mf == BT4 {
		son *= 2
	}
	lit := int64(litSize<<(c.lc+c.lp)) * 2
	n := poolClass(int64(windowFor(c, lzma2))) + poolClass((mask+1)*4) + poolClass(sideSize*4) + poolClass(son)
	n += int64(unsafe.Sizeof(encoder{})) + int64(unsafe.Sizeof(model{})) + lit + 2*lzma2PackMax
	if lzma2 {
		n += int64(unsafe.Sizeof(model{})) + lit + poolClass(lzma2UnpackMax+1<<12)
	}
	return n
}

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
	maxMemory int64 // 0: no limit
}

func invalid(what string, v int64) error {
	return fmt.Errorf("lzma: %w: %s(%d)", errs.ErrInvalidOption, what, v)
}

// resolve applies opts over the defaults and the level's settings.
func (c *encConfig) resolve(opts []WriterOption, lzma2 bool) error {
	level := 5
	var dict, lits, fb, mf, depth int64 = -1, -1, -1, -1, -1
	c.threads, c.blockSize, c.endMarker, c.knownSize, c.maxMemory = 1, 0, false, -1, 0
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
			if o.v != int64(HC4) && o.v != int64(BT4) && o.v != int64(HC5) {
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
		case wOptMaxMemory:
			if o.v < 0 {
				return invalid("MaxMemory", o.v)
			}
			c.maxMemory = o.v
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
		c.mf = HC5
	}
	if mf > 0 {
		c.mf = MatchFinderKind(mf)
	}
	c.depth = 16 + c.fastBytes/2
	if c.mf != BT4 {
		c.depth /= 2
	}
	if depth > 0 {
		c.depth = int(depth)
	}
	if c.maxMemory > 0 {
		if n := c.memory(lzma2); n > c.maxMemory {
			return errs.Limit("lzma: encoder needs %d bytes of memory, limit %d", n, c.maxMemory)
		}
	}
	return nil
}

// props returns the LZMA properties of c. The dictionary declared is
// the one used rounded up to 2^n or 3*2^n, as LzmaEnc_WriteProperties
// does for small ones: 7-Zip's .lzma handler opens no other size, and a
// decoder only needs at least the distance the encoder uses.
func (c *encConfig) props() Props {
	return Props{LC: c.lc, LP: c.lp, PB: c.pb, DictSize: declaredDict(c.dictSize)}
}

// declaredDict rounds d up to the next 2^n or 3*2^n (at most 1.5x).
func declaredDict(d uint32) uint32 {
	for i := 11; i < 32; i++ {
		if uint64(d) <= 2<<i {
			return uint32(min(2<<i, 0xFFFFFFFF))
		}
		if uint64(d) <= 3<<i {
			return uint32(min(3<<i, 0xFFFFFFFF))
		}
	}
	return 0xFFFFFFFF
}
