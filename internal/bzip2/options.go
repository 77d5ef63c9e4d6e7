package bzip2

import "fmt"

// Option configures a Reader. Options are plain values, so passing them to
// Reset allocates nothing.
type Option struct {
	kind optKind
	v    int64
	t    Tokens
}

type optKind uint8

const (
	optMaxMemory optKind = iota + 1
	optWorkers
	optShared
)

// MaxMemory limits the decoder memory to n bytes: the block table of the
// block size a stream declares (BZh1..BZh9: 400,000 bytes per level) plus
// the fixed buffers (see Memory). A stream that declares a larger block
// size fails with an error matching errs.ErrLimit before its table is
// allocated. With several workers, as many run as fit in n (at least one).
// 0 (the default) means no limit; a negative n makes NewReader and Reset
// fail.
func MaxMemory(n int64) Option { return Option{kind: optMaxMemory, v: n} }

// Workers lets the reader decode up to n blocks at once: on the caller's
// goroutine and on up to n-1 more. The output, the errors and where they
// are reported are the same as with one worker; 0 and 1 decode on the
// caller's goroutine only.
func Workers(n int) Option { return Option{kind: optWorkers, v: int64(n)} }

// Tokens is a budget of goroutines shared with other decoders (the
// engine.WorkerPool of a parallel extraction implements it).
type Tokens interface {
	TryAcquire() bool
	Release()
}

// Shared makes the reader's extra goroutines (beyond the caller's) each
// hold a token of t while they decode a block: taken without waiting
// when the block is handed out, given back when it is decoded. With no
// token free the reader decodes on the caller's goroutine alone, as
// with one worker. Workers(n) still caps the blocks decoded at once. A
// nil t (the default) means the n-1 extra goroutines are the reader's
// own.
func Shared(t Tokens) Option { return Option{kind: optShared, t: t} }

type config struct {
	maxMem  int64 // 0: no limit
	workers int
	tokens  Tokens // nil: the workers are the reader's own
}

func (c *config) apply(opts []Option) error {
	*c = config{workers: 1}
	for _, o := range opts {
		switch o.kind {
		case optMaxMemory:
			if o.v < 0 {
				return fmt.Errorf("bzip2: MaxMemory(%d) is negative", o.v)
			}
			c.maxMem = o.v
		case optWorkers:
			c.workers = int(max(min(o.v, 256), 1))
		case optShared:
			c.tokens = o.t
		default:
			return fmt.Errorf("bzip2: unknown option %d", o.kind)
		}
	}
	return nil
}

// Fixed memory besides the block table: the input buffer and the Huffman
// tables and selectors of one block decoder.
const (
	inBufSize  = 64 << 10
	decoderMem = 48 << 10
)

// Memory is the least decoder memory a stream of block size level
// (1..9) needs with one worker: its block table and the fixed buffers.
// With FastMemory(level) allowed, the reader walks each block into a
// buffer of its bytes first (on several chains at once, see walk.go).
// Each parallel worker needs WorkerMemory(level) on top.
func Memory(level int) int64 {
	return int64(level)*100_000*4 + inBufSize + decoderMem
}

// FastMemory is the decoder memory of one worker that walks each block
// into a buffer first: Memory plus that buffer.
func FastMemory(level int) int64 {
	return Memory(level) + int64(walkCap(level*100_000))
}

// WorkerMemory is what one more block in flight needs at block size
// level (with Workers(n), up to n+1 are: n decoding, one being read
// out): its block table, the buffer of its walked bytes, its copy of the
// compressed block (at most 20 bits per symbol plus the tables), its
// share of the read-ahead window (as much again) and a decoder.
func WorkerMemory(level int) int64 {
	bs := int64(level) * 100_000
	return 4*bs + int64(walkCap(int(bs))) + 2*maxBlockBytes(bs) + decoderMem
}

// maxBlockBytes bounds the compressed size of a block of bs bytes: at most
// bs+1 symbols of at most 20 bits, plus the block header, symbol map,
// selectors and code lengths.
func maxBlockBytes(bs int64) int64 {
	return (bs+1)*20/8 + 64<<10
}
