// Package lsb reads bit streams packed least significant bit first, the
// order of the legacy ZIP methods Shrink, Reduce and Implode (APPNOTE 5.1
// to 5.3). Input is read through a pooled 4 KiB buffer; Release returns it.
package lsb

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

const bufSize = 4 << 10

// Reader is a bit reader over an io.Reader. The zero value is ready after
// Reset. Bits holds the buffered bits, the next one in bit 0, and N how
// many of them are valid; callers may decode from them directly after Fill.
type Reader struct {
	Bits uint64
	N    uint

	r    io.Reader
	bp   *[]byte
	pos  int
	end  int
	err  error // sticky error of r (io.EOF once the input is done)
	what string
	in   int64 // bytes taken from r, counted from the stream's start
}

// Reset makes b read r; what names the stream in truncation errors.
func (b *Reader) Reset(r io.Reader, what string) {
	if b.bp == nil {
		b.bp = pool.Get(bufSize)
	}
	b.r, b.what = r, what
	b.Bits, b.N, b.pos, b.end, b.err, b.in = 0, 0, 0, 0, nil, 0
}

// ResetAt makes b read a stream from bit offset bit: r delivers it from
// byte bit/8, whose low bit%8 bits are skipped (a checkpoint's input
// offset, Consumed).
func (b *Reader) ResetAt(r io.Reader, what string, bit int64) error {
	b.Reset(r, what)
	b.in = bit / 8
	if k := uint(bit % 8); k > 0 {
		if _, err := b.Read(k); err != nil {
			return err
		}
	}
	return nil
}

// Consumed is the number of bits of the stream decoded so far.
func (b *Reader) Consumed() int64 { return (b.in-int64(b.end-b.pos))*8 - int64(b.N) }

// Release returns the input buffer to the pool; Reset takes a new one.
func (b *Reader) Release() {
	pool.Put(b.bp)
	b.bp = nil
	b.r = nil
}

// Fill tops up the bit buffer to at least 57 bits when the input has them,
// and otherwise to what is left. It never fails: a shortage shows as
// N being less than a caller needs, and Need reports it.
func (b *Reader) Fill() {
	for b.N <= 56 {
		if b.pos == b.end && !b.refill() {
			return
		}
		buf := (*b.bp)[b.pos:b.end]
		i := 0
		for ; i < len(buf) && b.N <= 56; i++ {
			b.Bits |= uint64(buf[i]) << b.N
			b.N += 8
		}
		b.pos += i
	}
}

func (b *Reader) refill() bool {
	if b.err != nil || b.bp == nil {
		return false
	}
	buf := (*b.bp)[:bufSize]
	for tries := 0; tries < 100; tries++ {
		n, err := b.r.Read(buf)
		if err != nil {
			b.err = err
		}
		if n > 0 {
			b.pos, b.end = 0, n
			b.in += int64(n)
			return true
		}
		if err != nil {
			return false
		}
	}
	b.err = io.ErrNoProgress
	return false
}

// Need makes sure n (at most 57) bits are buffered, or returns why not:
// ErrTruncated when the input ended, or the source's own error.
func (b *Reader) Need(n uint) error {
	if b.N >= n {
		return nil
	}
	b.Fill()
	if b.N >= n {
		return nil
	}
	return b.Err()
}

// Err is the error that stopped the input: ErrTruncated for its end.
func (b *Reader) Err() error {
	if b.bp == nil {
		return errs.Corrupt("%s: read after Close", b.what)
	}
	if b.err == nil || b.err == io.EOF || b.err == io.ErrUnexpectedEOF {
		return errs.Truncated(b.what)
	}
	return b.err
}

// Read returns the next n (at most 32) bits.
func (b *Reader) Read(n uint) (uint32, error) {
	if b.N < n {
		if err := b.Need(n); err != nil {
			return 0, err
		}
	}
	v := uint32(b.Bits & (1<<n - 1))
	b.Bits >>= n
	b.N -= n
	return v, nil
}

// Drop discards n buffered bits (n <= N).
func (b *Reader) Drop(n uint) {
	b.Bits >>= n
	b.N -= n
}
