package xz

import "fmt"

// Option configures a Reader. Options are plain values, so passing them to
// Reset allocates nothing.
type Option struct {
	kind optKind
	v    int64
}

type optKind uint8

const (
	optMaxMemory optKind = iota + 1
	optMaxDict
	optSingle
	optSize
	optWorkers
)

// MaxMemory limits the memory one block may need to n bytes: its LZMA2
// window (the dictionary, or less when the block header or
// UncompressedSize bounds the data the block can hold) plus FilterBufferSize for each BCJ or Delta filter.
// A block that needs more fails with an error matching errs.ErrLimit,
// checked from the block header before anything is allocated. 0 (the
// default) means no limit; a negative n makes NewReader and Reset fail.
func MaxMemory(n int64) Option { return Option{kind: optMaxMemory, v: n} }

// MaxDict limits the LZMA2 window of one block to n bytes: the declared
// dictionary, or less when the block header or UncompressedSize bounds the
// data it can hold. A block above it fails with an error matching
// errs.ErrLimit before anything is allocated. 0 (the default) means no
// limit; a negative n makes NewReader and Reset fail.
func MaxDict(n int64) Option { return Option{kind: optMaxDict, v: n} }

// UncompressedSize tells the reader the total decoded size when the
// container records it (ZIP's local header): no block window is counted
// larger than that for MaxDict and MaxMemory, and data that decodes to
// more fails with an error matching errs.ErrCorrupt, to less with one
// matching errs.ErrTruncated (as crc32x verifies a recorded size). A
// negative n means unknown (the default).
func UncompressedSize(n int64) Option { return Option{kind: optSize, v: n} }

// SingleStream makes the reader stop after the first stream: the end of
// its footer is the end of the data, and what follows is not looked at.
// Without it, further streams and stream padding are decoded, as xz does.
func SingleStream() Option { return Option{kind: optSingle, v: 1} }

// Workers lets the reader decode up to n blocks at once, each on its own
// goroutine (at most 256), when their headers declare both their
// compressed and uncompressed sizes, as xz -T and liblzma's
// multi-threaded encoder write them: a block's packed bytes are read
// ahead and decoded, its check and sizes verified, into a buffer of its
// declared size, and the blocks are handed on in order. A block whose
// header declares no sizes, or that does not fit MaxMemory as described
// there, is decoded on the caller's goroutine as with one worker, and
// anything a worker finds wrong in a block makes the caller decode that
// block and the rest of the stream serially: the output, the errors and
// where they are reported are those of one worker. 0 and 1 (the
// default) decode serially; a negative n makes NewReader and Reset
// fail. ResetAt ignores it: a reader resumed from a checkpoint is
// serial. Close stops the goroutines.
//
// With Workers, MaxMemory (when not 0) also bounds the blocks in
// flight: each costs its packed bytes and its output (each rounded up
// to a power of two, as the pool hands out buffers) and its window (the
// smaller of the dictionary and its size), plus FilterBufferSize per
// filter; fewer blocks are read ahead when more would not fit, and a
// block of which two would not fit is decoded serially.
func Workers(n int) Option { return Option{kind: optWorkers, v: int64(n)} }

// FilterBufferSize is what MaxMemory counts for each filter before LZMA2
// in a chain.
const FilterBufferSize = 64 << 10

type config struct {
	maxMem  int64 // 0: no limit
	maxDict int64 // 0: no limit
	size    int64 // -1: unknown
	single  bool
	workers int // blocks decoded at once (<= 1: serial)
}

func (c *config) apply(opts []Option) error {
	*c = config{size: -1}
	for _, o := range opts {
		switch o.kind {
		case optMaxMemory:
			if o.v < 0 {
				return fmt.Errorf("xz: MaxMemory(%d) is negative", o.v)
			}
			c.maxMem = o.v
		case optMaxDict:
			if o.v < 0 {
				return fmt.Errorf("xz: MaxDict(%d) is negative", o.v)
			}
			c.maxDict = o.v
		case optSize:
			c.size = max(o.v, -1)
		case optWorkers:
			if o.v < 0 {
				return fmt.Errorf("xz: Workers(%d) is negative", o.v)
			}
			c.workers = int(min(o.v, maxWorkers))
		case optSingle:
			c.single = o.v != 0
		default:
			return fmt.Errorf("xz: unknown option %d", o.kind)
		}
	}
	return nil
}
