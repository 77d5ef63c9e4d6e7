package lzma

import (
	"fmt"
	"strings"

	"github.com/go-unarc/unarc/internal/errs"
	core "github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/optfn"
)

// invalid is the error of an option value that cannot be meant.
func invalid(name string, v any) error {
	return fmt.Errorf("lzma: %w: %s(%v)", errs.ErrInvalidOption, name, v)
}

// ReaderOption configures NewReader, NewRawReader and NewReader2. Options
// apply in order; a value that cannot be meant makes the constructor fail
// with an error matching unarc.ErrInvalidOption.
type ReaderOption func(*readerConfig) error

// readerConfig is what the reader options set: the decoder options of
// the implementation, and the worker count of an LZMA2 reader.
type readerConfig struct {
	opts    []core.Option
	workers int
}

func (c *readerConfig) apply(opts []ReaderOption) error {
	*c = readerConfig{workers: 1}
	return optfn.Apply(c, opts)
}

// WithMaxDict limits the window a reader may allocate to n bytes (0, the
// default: no limit). The window needed is the smaller of the dictionary
// size and the uncompressed size when that is known, else the dictionary
// size; a stream that needs more fails before anything is allocated, with
// an error matching unarc.ErrLimit.
func WithMaxDict(n int64) ReaderOption {
	return func(c *readerConfig) error {
		if n < 0 {
			return invalid("WithMaxDict", n)
		}
		c.opts = append(c.opts, core.MaxDict(n))
		return nil
	}
}

// WithGrowWindow makes the reader start with a small window and double it
// as output is produced (up to the smaller of the dictionary and the
// size), so a header that declares a large size over a short stream costs
// only what the stream produces. Without it a known size allocates the
// whole window at once.
func WithGrowWindow() ReaderOption {
	return func(c *readerConfig) error {
		c.opts = append(c.opts, core.GrowWindow())
		return nil
	}
}

// WithEndMarker sets what an LZMA stream must end with: required true,
// an end marker; false, none (the size must then be known). Without the
// option the marker is required only when the size is unknown and allowed
// after the last byte of a known size. LZMA2 has its own end and ignores
// the option.
func WithEndMarker(required bool) ReaderOption {
	m := core.MarkerForbidden
	if required {
		m = core.MarkerRequired
	}
	return func(c *readerConfig) error {
		c.opts = append(c.opts, core.EndMarker(m))
		return nil
	}
}

// WithWorkers lets an LZMA2 reader decode up to n blocks at once on n
// goroutines (n >= 1; 1, the default, decodes on the caller's goroutine).
// Only streams written in independent blocks (7-Zip and xz with several
// threads, NewWriter2 with WithThreads) decode in parallel; any other
// stream decodes as with one worker. Each worker holds a block's input and
// output and its window. LZMA (not LZMA2) readers ignore it.
func WithWorkers(n int) ReaderOption {
	return func(c *readerConfig) error {
		if n < 1 {
			return invalid("WithWorkers", n)
		}
		c.workers = n
		return nil
	}
}

// WriterOption configures NewWriter, NewRawWriter and NewWriter2. Options
// apply in order (a later one overrides an earlier one; explicit settings
// override the level's whatever their order); a value that cannot be meant
// makes the constructor fail with an error matching
// unarc.ErrInvalidOption.
type WriterOption func(*writerConfig) error

// writerConfig collects the encoder options of the implementation.
type writerConfig struct {
	opts []core.WriterOption
}

func (c *writerConfig) apply(opts []WriterOption) error {
	*c = writerConfig{}
	return optfn.Apply(c, opts)
}

// add returns an option that appends o after checking lo <= v <= hi.
func add(name string, v, lo, hi int64, o core.WriterOption) WriterOption {
	return func(c *writerConfig) error {
		if v < lo || v > hi {
			return invalid(name, v)
		}
		c.opts = append(c.opts, o)
		return nil
	}
}

// WithLevel selects 7-Zip's preset n (0..9, default 5): the dictionary,
// match finder, fast bytes and parser. Memory is what one encoder
// allocates (LZMA2 adds about 4 MiB; each extra thread as much again):
//
//	level  dictionary  match finder  parser   memory
//	0      64 KiB      hc5           fast       3 MiB
//	1      256 KiB     hc5           fast       4 MiB
//	2      1 MiB       hc5           fast      10 MiB
//	3      4 MiB       hc5           fast      32 MiB
//	4      16 MiB      hc5           fast     128 MiB
//	5      32 MiB      bt4           optimal  384 MiB
//	6      64 MiB      bt4           optimal  704 MiB
//	7      128 MiB     bt4           optimal  1.4 GiB
//	8, 9   256 MiB     bt4           optimal  2.8 GiB
//
// With WithKnownSize the dictionary shrinks to the data, so a small input
// never costs the level's full memory.
func WithLevel(n int) WriterOption { return add("WithLevel", int64(n), 0, 9, core.Level(n)) }

// WithDictSize overrides the level's dictionary size (4 KiB to 1.5 GiB).
func WithDictSize(n int64) WriterOption {
	return add("WithDictSize", n, core.MinDictSize, core.MaxDictSize, core.DictSize(n))
}

// WithLiteralBits sets the literal context bits lc (0..8), the literal
// position bits lp (0..4) and the position bits pb (0..4); the default is
// 3, 0, 2. LZMA2 also requires lc+lp <= 4 (checked by NewWriter2).
func WithLiteralBits(lc, lp, pb int) WriterOption {
	return func(c *writerConfig) error {
		if lc < 0 || lc > 8 || lp < 0 || lp > 4 || pb < 0 || pb > 4 {
			return invalid("WithLiteralBits", fmt.Sprint(lc, ",", lp, ",", pb))
		}
		c.opts = append(c.opts, core.LiteralBits(lc, lp, pb))
		return nil
	}
}

// WithFastBytes sets the match length at which the parser stops looking
// for a better choice (5..273; the level's 32 or 64 by default).
func WithFastBytes(n int) WriterOption {
	return add("WithFastBytes", int64(n), core.MinFastBytes, core.MaxFastBytes, core.FastBytes(n))
}

// WithMatchFinder selects the match finder by 7-Zip's name: "bt4" (a
// binary tree: the longest matches, levels 5-9), "hc4" (a hash chain) or
// "hc5" (a hash chain over 5-byte hashes: levels 0-4). Case is ignored.
func WithMatchFinder(name string) WriterOption {
	return func(c *writerConfig) error {
		var m core.MatchFinderKind
		switch strings.ToLower(name) {
		case "bt4":
			m = core.BT4
		case "hc4":
			m = core.HC4
		case "hc5":
			m = core.HC5
		default:
			return invalid("WithMatchFinder", fmt.Sprintf("%q", name))
		}
		c.opts = append(c.opts, core.MatchFinder(m))
		return nil
	}
}

// WithDepth sets how many candidates the match finder visits per position
// (1..1<<30; 0: the level's).
func WithDepth(n int) WriterOption { return add("WithDepth", int64(n), 0, 1<<30, core.Depth(n)) }

// WithThreads sets the goroutines of an LZMA2 encoder (1..1024; 1, the
// default, encodes on the caller's goroutine). With more, or with
// WithBlockSize, the input is cut into independent blocks (each starts
// with a dictionary reset, so readers can decode them in parallel with
// WithWorkers) encoded on up to n goroutines. The output depends on the
// input, the options and the Flush calls, never on n. Memory: n times a
// block's input and output plus the encoder tables of min(dictionary,
// block size). LZMA (not LZMA2) writers use one thread whatever the
// option.
func WithThreads(n int) WriterOption { return add("WithThreads", int64(n), 1, 1024, core.Threads(n)) }

// WithBlockSize sets the size of the independent blocks of an LZMA2
// encoder (0, the default: with WithThreads above 1, 7-Zip's choice of
// four times the dictionary, 1 MiB to 256 MiB and at least the
// dictionary; otherwise one solid block). Sizes under 4 KiB are raised to
// 4 KiB.
func WithBlockSize(n int64) WriterOption {
	return add("WithBlockSize", n, 0, 1<<40, core.BlockSize(n))
}

// WithKnownSize declares the number of bytes that will be written (-1:
// unknown, the default). The .lzma header records it, an LZMA stream of
// known size needs no end marker, and the dictionary shrinks to the data.
// Close fails with an error matching unarc.ErrInvalidOption when a
// different number of bytes was written.
func WithKnownSize(n int64) WriterOption {
	return add("WithKnownSize", n, -1, 1<<62, core.KnownSize(n))
}

// WithWriteEndMarker makes an LZMA writer end the stream with an end
// marker even when the size is known (without WithKnownSize the marker is
// always written). LZMA2 has its own end and ignores it.
func WithWriteEndMarker() WriterOption {
	return func(c *writerConfig) error {
		c.opts = append(c.opts, core.WriteEndMarker(true))
		return nil
	}
}

// WithMaxMemory makes the constructors and Reset fail, with an error
// matching unarc.ErrLimit, when the encoder would allocate more than n
// bytes (0, the default: no limit). See WithLevel for what each level
// needs.
func WithMaxMemory(n int64) WriterOption {
	return add("WithMaxMemory", n, 0, 1<<62, core.MaxMemory(n))
}
