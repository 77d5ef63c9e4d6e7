// Package codecreader holds what the stream codecs' readers share, so it
// is written once: the constructor of an implementation whose Reset does
// all the setting up (internal/bzip2, internal/xz), and the reader that
// the public packages bzip2 and xz wrap in their own documented Reader
// (options collected, the implementation's ErrClosed replaced by the
// public package's).
package codecreader

import (
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/optfn"
)

// New returns a new T set up by its Reset to decode r with opts: the
// constructor of an implementation whose zero value Reset makes ready.
func New[T any, O any, PT interface {
	*T
	Reset(r io.Reader, opts ...O) error
}](r io.Reader, opts ...O) (PT, error) {
	z := PT(new(T))
	if err := z.Reset(r, opts...); err != nil {
		return nil, err
	}
	return z, nil
}

// Replace returns err with the error closed (an implementation's
// ErrClosed, matched with errors.Is) replaced by pub (the public
// package's); nil and io.EOF are returned as they are.
func Replace(err, closed, pub error) error {
	if err != nil && err != io.EOF && errors.Is(err, closed) {
		return pub
	}
	return err
}

// Impl is what an implementation offers to a Reader: a decoder that Reset
// starts again on new data with the options O.
type Impl[O any] interface {
	io.Reader
	io.WriterTo
	io.Closer
	Reset(r io.Reader, opts ...O) error
}

// Config collects the options of the implementation: a public package's
// option functions append to Opts.
type Config[O any] struct {
	Opts []O
}

// Reader decodes with an implementation I and reports its ErrClosed as
// the public package's.
type Reader[I Impl[O], O any] struct {
	z      I
	opts   []O
	closed error // the implementation's ErrClosed
	pub    error // the public package's, which replaces it
}

// Open applies the public options opts in order (see optfn.Apply), then
// returns a Reader of r made by newImpl with the options they collected.
// closed and pub are the implementation's and the public package's
// ErrClosed. The Reader is returned by value, for the public Reader to
// hold in place.
func Open[I Impl[O], O any, P ~func(*Config[O]) error](newImpl func(io.Reader, ...O) (I, error), r io.Reader, opts []P, closed, pub error) (Reader[I, O], error) {
	var c Config[O]
	if err := optfn.Apply(&c, opts); err != nil {
		return Reader[I, O]{}, err
	}
	z, err := newImpl(r, c.Opts...)
	if err != nil {
		return Reader[I, O]{}, err
	}
	return Reader[I, O]{z: z, opts: c.Opts, closed: closed, pub: pub}, nil
}

// Reset makes z decode new data from r with the same options.
func (z *Reader[I, O]) Reset(r io.Reader) error { return z.z.Reset(r, z.opts...) }

// Read decodes into p.
func (z *Reader[I, O]) Read(p []byte) (int, error) {
	n, err := z.z.Read(p)
	return n, Replace(err, z.closed, z.pub)
}

// WriteTo writes the rest of the decoded data to w.
func (z *Reader[I, O]) WriteTo(w io.Writer) (int64, error) {
	n, err := z.z.WriteTo(w)
	return n, Replace(err, z.closed, z.pub)
}

// Close closes the implementation.
func (z *Reader[I, O]) Close() error { return z.z.Close() }
