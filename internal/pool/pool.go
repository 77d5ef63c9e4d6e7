// Package pool keeps size-classed byte slices and typed values for reuse,
// so decoders allocate their windows, tables and buffers once per process
// rather than once per entry.
package pool

import (
	"math/bits"
	"sync"
)

// Byte slices come in power-of-two classes from 1<<minShift to 1<<maxShift.
// Larger requests are allocated directly and dropped on Put: holding on to
// multi-GiB windows in a pool would pin memory the caller never asked to keep.
const (
	minShift = 8  // 256 B
	maxShift = 30 // 1 GiB
)

var classes [maxShift + 1]sync.Pool

func class(n int) int {
	if n <= 1<<minShift {
		return minShift
	}
	return bits.Len(uint(n - 1))
}

// Get returns a slice of length n whose capacity is n rounded up to a power
// of two. Its contents are undefined: callers that need zeroes clear it.
// The pointer is what goes back to Put, so Get/Put allocate nothing once warm.
func Get(n int) *[]byte {
	if n < 0 {
		panic("pool: negative size")
	}
	c := class(n)
	if c > maxShift {
		b := make([]byte, n)
		return &b
	}
	if v := classes[c].Get(); v != nil {
		p := v.(*[]byte)
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, 1<<c)
	return &b
}

// Put returns a slice obtained from Get. Put(nil) is a no-op.
func Put(p *[]byte) {
	if p == nil {
		return
	}
	c := cap(*p)
	if c < 1<<minShift || c > 1<<maxShift || c&(c-1) != 0 {
		return // not one of ours (or too big to keep)
	}
	*p = (*p)[:0]
	classes[bits.Len(uint(c))-1].Put(p)
}

// Of pools values of one type, such as Huffman tables or probability
// arrays. New must return a ready value; Get does not reset it.
type Of[T any] struct {
	p   sync.Pool
	New func() *T
}

// Get returns a pooled value or a new one.
func (o *Of[T]) Get() *T {
	if v := o.p.Get(); v != nil {
		return v.(*T)
	}
	if o.New != nil {
		return o.New()
	}
	return new(T)
}

// Put returns v to the pool. Put(nil) is a no-op.
func (o *Of[T]) Put(v *T) {
	if v != nil {
		o.p.Put(v)
	}
}
