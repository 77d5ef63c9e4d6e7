package xz

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/codecreader"
	"github.com/go-unarc/unarc/internal/errs"
	core "github.com/go-unarc/unarc/internal/xz"
)

// ErrClosed: Read after Close without a Reset.
var ErrClosed = errors.New("xz: reader closed")

// ReaderOption configures NewReader. Options apply in order; a value that
// cannot be meant makes NewReader fail with an error matching
// unarc.ErrInvalidOption.
type ReaderOption func(*readerConfig) error

// readerConfig collects the options of the implementation.
type readerConfig = codecreader.Config[core.Option]

func nonNegative(name string, n int64, o core.Option) ReaderOption {
	return func(c *readerConfig) error {
		if n < 0 {
			return fmt.Errorf("xz: %w: %s(%d)", errs.ErrInvalidOption, name, n)
		}
		c.Opts = append(c.Opts, o)
		return nil
	}
}

// WithMaxMemory limits the memory one block may need to n bytes: its
// LZMA2 window (the dictionary, or less when the block header or
// WithUncompressedSize bounds the data the block holds) plus 64 KiB for
// each BCJ or Delta filter. A block that needs more fails with an error
// matching unarc.ErrLimit, checked from its header before anything is
// allocated. 0, the default, means no limit.
func WithMaxMemory(n int64) ReaderOption { return nonNegative("WithMaxMemory", n, core.MaxMemory(n)) }

// WithMaxDict limits the LZMA2 window of one block to n bytes, as
// WithMaxMemory does without counting the filters. 0, the default, means
// no limit.
func WithMaxDict(n int64) ReaderOption { return nonNegative("WithMaxDict", n, core.MaxDict(n)) }

// WithUncompressedSize gives the total decoded size when the caller knows
// it (a container records it): no window is counted larger than that for
// the limits, and data that decodes to more fails with an error matching
// unarc.ErrCorrupt, to less with one matching unarc.ErrTruncated. The
// size must not be negative.
func WithUncompressedSize(n int64) ReaderOption {
	return nonNegative("WithUncompressedSize", n, core.UncompressedSize(n))
}

// WithSingleStream makes the reader stop after the first stream: the end
// of its footer is the end of the data. Without it, concatenated streams
// and stream padding are decoded, as xz does.
func WithSingleStream() ReaderOption {
	return func(c *readerConfig) error {
		c.Opts = append(c.Opts, core.SingleStream())
		return nil
	}
}

// WithWorkers lets the reader decode up to n blocks at once (n >= 1, at
// most 256 are used), each on its own goroutine, where the block headers
// declare both sizes, as xz -T and liblzma's multi-threaded encoder write
// them; other blocks, and a stream whose blocks do not fit
// WithMaxMemory, are decoded on the caller's goroutine. The output, the
// errors and where they are reported are those of one worker, the
// default. Each block in flight (up to n+1) costs its packed bytes, its
// output and its window (with WithMaxMemory, all of them together stay
// under it): about 38 MiB for xz -6 -T0's 24 MiB blocks. Close stops
// the goroutines.
func WithWorkers(n int) ReaderOption {
	return func(c *readerConfig) error {
		if n < 1 {
			return fmt.Errorf("xz: %w: WithWorkers(%d)", errs.ErrInvalidOption, n)
		}
		c.Opts = append(c.Opts, core.Workers(n))
		return nil
	}
}

// The Reader and its methods mirror package bzip2's on purpose: each public
// codec documents its own Reader and methods, which forward to
// internal/codecreader's Reader, where the logic is written once.

// Reader decodes .xz data: one stream, or concatenated streams with their
// padding. Create it with NewReader; decode with Read or io.Copy (WriteTo
// writes straight from the LZMA2 window when the block has no filter);
// Close returns its buffers to the package's pools. A Reader is not safe
// for concurrent use.
type Reader struct {
	r codecreader.Reader[*core.Reader, core.Option]
}

// NewReader returns a reader of the .xz data in r. Nothing is read before
// the first Read; data that does not start with the .xz magic then fails
// with an error matching unarc.ErrFormat.
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	c, err := codecreader.Open(core.NewReader, r, opts, core.ErrClosed, ErrClosed)
	if err != nil {
		return nil, err
	}
	return &Reader{c}, nil
}

// Reset makes z decode new .xz data from r with the same options, keeping
// its buffers. It may be called after Close.
func (z *Reader) Reset(r io.Reader) error { return z.r.Reset(r) }

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) { return z.r.Read(p) }

// WriteTo writes the rest of the data to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) { return z.r.WriteTo(w) }

// Close returns the buffers to the pools and stops the goroutines of
// WithWorkers. Reads fail afterwards, with ErrClosed, until Reset.
func (z *Reader) Close() error { return z.r.Close() }
