package bzip2

import (
	"errors"
	"fmt"
	"io"

	core "github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/optfn"
)

// ErrClosed: Read after Close without a Reset.
var ErrClosed = errors.New("bzip2: reader closed")

// pub returns err with the implementation's ErrClosed replaced by this
// package's.
func pub(err error) error {
	if err != nil && err != io.EOF && errors.Is(err, core.ErrClosed) {
		return ErrClosed
	}
	return err
}

// ReaderOption configures NewReader. Options apply in order; a value that
// cannot be meant makes NewReader fail with an error matching
// unarc.ErrInvalidOption.
type ReaderOption func(*readerConfig) error

// readerConfig collects the options of the implementation.
type readerConfig struct {
	opts []core.Option
}

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
		c.opts = append(c.opts, core.MaxMemory(n))
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
		c.opts = append(c.opts, core.Workers(n))
		return nil
	}
}

// The Reader and its methods mirror package xz's on purpose: each public
// codec documents its own methods over its internal implementation.

// Reader decodes bzip2 data: one stream or concatenated streams. Create
// it with NewReader; decode with Read or io.Copy (WriteTo); Close returns
// its buffers to the package's pools and stops its goroutines. A Reader
// is not safe for concurrent use.
type Reader struct {
	z    *core.Reader
	opts []core.Option
}

// NewReader returns a reader of the bzip2 data in r. Nothing is read
// before the first Read; data that does not start with "BZh" then fails
// with an error matching unarc.ErrFormat.
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	var c readerConfig
	if err := optfn.Apply(&c, opts); err != nil {
		return nil, err
	}
	z, err := core.NewReader(r, c.opts...)
	if err != nil {
		return nil, err
	}
	return &Reader{z: z, opts: c.opts}, nil
}

// Reset makes z decode new bzip2 data from r with the same options,
// keeping its buffers. It may be called after Close.
func (z *Reader) Reset(r io.Reader) error { return z.z.Reset(r, z.opts...) }

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) {
	n, err := z.z.Read(p)
	return n, pub(err)
}

// WriteTo writes the rest of the decoded data to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	n, err := z.z.WriteTo(w)
	return n, pub(err)
}

// Close stops the reader's goroutines and returns its buffers to the
// pools. Reads fail afterwards, with ErrClosed, until Reset.
func (z *Reader) Close() error { return z.z.Close() }
