// Package pool keeps size-classed byte slices and typed values for reuse,
// so decoders allocate their windows, tables and buffers once per process
// rather than once per entry.
package pool

import (
	"io"
	"math/bits"
	"runtime"
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

// Buffers are also kept on a small free list that the garbage collector
// does not empty: a sync.Pool loses its items on every second GC (and
// re-allocates its per-P array at the next use) and cannot hand a
// P-private item to another P. Re-allocating (and zeroing) an 8 MiB
// window per archive is what the pooling is meant to avoid, and the small
// classes (4 KiB input buffers, bit-reader scratch) refilled after a GC
// are what made one extraction's allocation swing from run to run. The
// list is bounded per class and in total (16 per class: a 4-goroutine
// LZMA2 encoder holds 8 tables of one class); what does not fit goes to
// the sync.Pool of its class.
const (
	bigShift    = minShift  // every class uses the free list
	bigPerClass = 16        // at most this many buffers kept per class
	bigRetained = 256 << 20 // and at most this many bytes in all
)

var big struct {
	sync.Mutex
	free     [maxShift + 1][]*[]byte
	retained int
}

func getBig(c int) *[]byte {
	big.Lock()
	defer big.Unlock()
	l := big.free[c]
	if len(l) == 0 {
		return nil
	}
	p := l[len(l)-1]
	l[len(l)-1] = nil
	big.free[c] = l[:len(l)-1]
	big.retained -= 1 << c
	return p
}

func putBig(c int, p *[]byte) bool {
	big.Lock()
	defer big.Unlock()
	if len(big.free[c]) >= bigPerClass || big.retained+1<<c > bigRetained {
		return false
	}
	big.free[c] = append(big.free[c], p)
	big.retained += 1 << c
	return true
}

// Release drops the large buffers and the typed values kept on the free
// lists, for programs that want the memory back after a burst of
// extraction.
func Release() {
	big.Lock()
	for c := range big.free {
		clear(big.free[c])
		big.free[c] = big.free[c][:0]
	}
	big.retained = 0
	big.Unlock()
	ofLists.Lock()
	all := ofLists.all
	ofLists.Unlock()
	for _, o := range all {
		o.drop()
	}
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
		// Nothing this large is kept, yet one dropped stays mapped until
		// a collection finds it: collect first, so that a decoder of a
		// second folder reuses the first one's pages instead of
		// reserving as much again beside them (the previous window and
		// this one would both count against an address-space limit,
		// ulimit -v). One collection costs little next to a window this
		// size.
		runtime.GC()
		b := make([]byte, n)
		return &b
	}
	if c >= bigShift {
		if p := getBig(c); p != nil {
			*p = (*p)[:n]
			return p
		}
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
	k := bits.Len(uint(c)) - 1
	if k >= bigShift && putBig(k, p) {
		return
	}
	classes[k].Put(p)
}

// Of pools values of one type, such as Huffman tables or probability
// arrays. New must return a ready value; Get does not reset it.
//
// A few values are kept on a free list the garbage collector does not
// empty, for the same reasons as the large buffers: a sync.Pool loses its
// items at GC and cannot hand a P-private item to another P, so a
// goroutine that moves between Ps would allocate a fresh value for
// entries that had one waiting. Release drops the lists. An Of must not
// be copied after first use.
type Of[T any] struct {
	mu   sync.Mutex
	free []*T
	reg  bool
	p    sync.Pool
	New  func() *T
}

// ofKeep is how many values of one type stay on an Of's free list (a
// 4-goroutine LZMA2 encoder holds 8 probability models).
const ofKeep = 16

// ofLists are the Of values that have kept something, for Release.
var ofLists struct {
	sync.Mutex
	all []interface{ drop() }
}

// Get returns a pooled value or a new one.
func (o *Of[T]) Get() *T {
	o.mu.Lock()
	if n := len(o.free); n > 0 {
		v := o.free[n-1]
		o.free[n-1] = nil
		o.free = o.free[:n-1]
		o.mu.Unlock()
		return v
	}
	o.mu.Unlock()
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
	if v == nil {
		return
	}
	o.mu.Lock()
	if len(o.free) < ofKeep {
		if o.free == nil {
			o.free = make([]*T, 0, ofKeep)
		}
		o.free = append(o.free, v)
		first := !o.reg
		o.reg = true
		o.mu.Unlock()
		if first {
			ofLists.Lock()
			ofLists.all = append(ofLists.all, o)
			ofLists.Unlock()
		}
		return
	}
	o.mu.Unlock()
	o.p.Put(v)
}

// Hold points *v at a pooled value unless it holds one already: the
// Reset of a decoder that keeps its tables across streams.
func (o *Of[T]) Hold(v **T) {
	if *v == nil {
		*v = o.Get()
	}
}

// Drop returns *v to the pool, if set, and clears it: the Close of such
// a decoder.
func (o *Of[T]) Drop(v **T) {
	o.Put(*v)
	*v = nil
}

// drop empties the free list (for Release).
func (o *Of[T]) drop() {
	o.mu.Lock()
	clear(o.free)
	o.free = o.free[:0]
	o.mu.Unlock()
}

// Copy copies r to w through a pooled 64 KiB buffer until io.EOF. It is
// the WriteTo of readers that have no window of their own; it calls
// r.Read directly, never r's WriteTo or w's ReadFrom, so a WriteTo may
// use it without recursing.
func Copy(w io.Writer, r io.Reader) (int64, error) {
	bp := Get(64 << 10)
	defer Put(bp)
	return CopyBuffer(w, r, *bp)
}

// CopyBuffer is Copy through the caller's buf: r.Read is called directly,
// never r's WriteTo, so a WriteTo may delegate to it.
func CopyBuffer(w io.Writer, r io.Reader, buf []byte) (int64, error) {
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
			if m < n {
				return total, io.ErrShortWrite
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}
