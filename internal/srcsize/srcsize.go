// Package srcsize checks the size a caller says an io.ReaderAt holds,
// before a format parser computes offsets from it: a negative size made
// slice bounds negative (a panic), and a size past the end of the input
// made a parser look for an end record that is not there.
package srcsize

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Negative returns errs.ErrInvalidOption for a negative size. It is the
// check of an OpenIndex: the index's own record of the archive's size,
// compared first, rejects any other wrong size (arc.ErrStaleIndex) without
// the extra read of Check.
func Negative(size int64) error {
	if size < 0 {
		return fmt.Errorf("%w: negative input size %d", errs.ErrInvalidOption, size)
	}
	return nil
}

// Check returns nil when ra holds at least size bytes. A negative size is
// errs.ErrInvalidOption (the caller's mistake, not the archive's); a size
// past the end of ra is errs.ErrTruncated, found by reading its last byte
// (one ReadAt of one byte, from a pooled buffer: a local one would
// escape through the interface); any other read error is returned as is.
func Check(ra io.ReaderAt, size int64) error {
	if size <= 0 {
		return Negative(size)
	}
	bp := pool.Get(1)
	n, err := ra.ReadAt((*bp)[:1], size-1)
	pool.Put(bp)
	if n == 1 {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errs.Truncated(fmt.Sprintf("the input ends before the %d bytes its size says", size))
	}
	return err
}
