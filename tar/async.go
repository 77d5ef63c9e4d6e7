package tar

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Decoding ahead: with Workers > 1 a single-goroutine decompressor (gzip,
// xz, lzma, lzip) runs on its own goroutine, filling a small ring of big
// buffers, while the caller's goroutine parses tar and hashes or copies
// what it reads. Memory is bounded by the ring; the limits (ratio, total)
// are still counted by the guard on the consumer side, so at most the
// ring's bytes are decoded past a limit before it stops the stream.
const (
	aheadBufs = 3
	aheadSize = 1 << 20
	aheadCost = aheadBufs * aheadSize // counted against MaxMemory (aheadFits)
)

type aheadBuf struct {
	p   *[]byte // pooled, len aheadSize
	n   int     // bytes filled
	off int     // bytes consumed
	err error   // after the n bytes (io.EOF at the end)
}

// ahead reads r on a goroutine. Its zero value is idle; start runs it,
// stop ends it (waiting for the goroutine, so r is no longer read once
// stop returns).
type ahead struct {
	r      io.Reader
	bufs   [aheadBufs]aheadBuf
	full   chan *aheadBuf
	free   chan *aheadBuf
	done   chan struct{}
	exited chan struct{}
	cur    *aheadBuf
	err    error // sticky, once the consumer reached it
	on     bool
}

func (a *ahead) start(r io.Reader) {
	a.r, a.cur, a.err, a.on = r, nil, nil, true
	a.full = make(chan *aheadBuf, aheadBufs+1) // + a panic's error
	a.free = make(chan *aheadBuf, aheadBufs)
	a.done = make(chan struct{})
	a.exited = make(chan struct{})
	for i := range a.bufs {
		a.bufs[i] = aheadBuf{p: pool.Get(aheadSize)}
		a.free <- &a.bufs[i]
	}
	go a.run()
}

// run fills free buffers until r ends or fails, or stop is called.
func (a *ahead) run() {
	defer close(a.exited)
	defer func() {
		if v := recover(); v != nil {
			// A decoder bug must not kill the process from a goroutine
			// the caller cannot guard; it ends the stream as corrupt.
			b := &aheadBuf{err: errs.Corrupt("decoder failed: %v", v)}
			select {
			case a.full <- b:
			default:
			}
		}
	}()
	for {
		var b *aheadBuf
		select {
		case b = <-a.free:
		case <-a.done:
			return
		}
		buf := *b.p
		b.n, b.off, b.err = 0, 0, nil
		for b.n < len(buf) && b.err == nil {
			var m int
			m, b.err = a.r.Read(buf[b.n:])
			b.n += m
			if m == 0 && b.err == nil {
				select {
				case <-a.done:
					return
				default:
				}
			}
		}
		a.full <- b // never blocks: the channel holds every buffer
		if b.err != nil {
			return
		}
	}
}

// Read returns the decoded bytes in order, then the decoder's error
// after the bytes that preceded it.
func (a *ahead) Read(p []byte) (int, error) {
	if !a.on {
		// Stopped (or never started): its buffers are back in the pool
		// and its channels gone; a read must fail, not wait forever.
		return 0, errClosed
	}
	for {
		if b := a.cur; b != nil {
			if b.off < b.n {
				n := copy(p, (*b.p)[b.off:b.n])
				b.off += n
				return n, nil
			}
			if b.err != nil {
				a.err = b.err
			} else {
				a.cur = nil
				a.free <- b
			}
		}
		if a.err != nil {
			return 0, a.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		a.cur = <-a.full
	}
}

// stop ends the goroutine and gives the buffers back.
func (a *ahead) stop() {
	if !a.on {
		return
	}
	close(a.done)
	<-a.exited
	for i := range a.bufs {
		pool.Put(a.bufs[i].p)
	}
	*a = ahead{}
}
