package bzip2

import (
	"errors"
	"fmt"
	"io"

	core "github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/codecreader"
	"github.com/go-unarc/unarc/internal/errs"
)

// ErrClosed: Read after Close without a Reset.
var ErrClosed = errors.New("bzip2: reader closed")

// ReaderOption configures NewReader. Options apply in order; a value that
// cannot be meant makes NewReader fail with an error matching
// unarc.ErrInvalidOption.
type ReaderOption func(*readerConfig) error

// readerConfig collects the options of the implementation.
type readerConfig = codecreader.Config[core.Option]

// WithMaxMemory limits the decoder memory to n bytes: the block table of
// the block size a stream declares (4 bytes per byte: 400,000 bytes per
// level of BZh1..BZh9) plus about 112 KiB of buffers and tables. A stream
// that declares a larger block size fails with an error matching
// unarc.ErrLimit before its table is allocated (3.7 MB at BZh9). Below
// about 4.6 MB at BZh9 each block is decoded on one chain straight into
// the caller's buffer (slower, less memory). With
// several workers, as many run as fit in n (at least one). 0, the
// default, means no limit.
func WithMaxMemory(n int64) ReaderOption {
	return func(c *readerConfig) error {
		if n < 0 {
			return fmt.Errorf("bzip2: %w: WithMaxMemory(%d)", errs.ErrInvalidOption, n)
		}
		c.Opts = append(c.Opts, core.MaxMemory(n))
		return nil
	}
}

// WithWorkers lets the reader decode up to n blocks at once (n >= 1,
// at most 256 are used): on the caller's goroutine and up to n-1 more.
// The output, the errors and where they are reported are those of one
// worker, the default. Each block in flight (up to n+1) costs about
// 9.2 MB at BZh9 on top of the single worker's memory.
func WithWorkers(n int) ReaderOption {
	return func(c *readerConfig) error {
		if n < 1 {
			return fmt.Errorf("bzip2: %w: WithWorkers(%d)", errs.ErrInvalidOption, n)
		}
		c.Opts = append(c.Opts, core.Workers(n))
		return nil
	}
}

// The Reader and its methods mirror package xz's on purpose: each public
// codec documents its own Reader and methods, which forward to
// internal/codecreader's Reader, where the logic is written once.

// Reader decodes bzip2 data: one stream or concatenated streams. Create
// it with NewReader; decode with Read or io.Copy (WriteTo); Close returns
// its buffers to the package's pools and stops its goroutines. A Reader
// is not safe for concurrent use.
type Reader struct {
	r codecreader.Reader[*core.Reader, core.Option]
}

// NewReader returns a reader of the bzip2 data in r. Nothing is read
// before the first Read; data that does not start with "BZh" then fails
// with an error matching unarc.ErrFormat.
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	c, err := codecreader.Open(core.NewReader, r, opts, core.ErrClosed, ErrClosed)
	if err != nil {
		return nil, err
	}
	return &Reader{c}, nil
}

// Reset makes z decode new bzip2 data from r with the same options,
// keeping its buffers. It may be called after Close.
func (z *Reader) Reset(r io.Reader) error { return z.r.Reset(r) }

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) { return z.r.Read(p) }

// WriteTo writes the rest of the decoded data to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) { return z.r.WriteTo(w) }

// Close stops the reader's goroutines and returns its buffers to the
// pools. Reads fail afterwards, with ErrClosed, until Reset.
func (z *Reader) Close() error { return z.r.Close() }
