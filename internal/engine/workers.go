package engine

import "sync/atomic"

// WorkerPool is a budget of goroutines shared by the decoders of one
// operation over several units (a parallel Extract or Verify). The
// scheduler runs each unit on a goroutine of its own, which needs no
// token; a decoder that could use more goroutines inside its unit (BZip2
// blocks) takes a token for each extra one without waiting (TryAcquire)
// and gives it back as soon as that goroutine's work is done (Release).
// The scheduler releases a token whenever one of its goroutines runs out
// of units, so the goroutines doing work never exceed the operation's
// worker count, and a unit that is left alone at the end still gets the
// idle cores. All methods are safe for concurrent use; a nil *WorkerPool
// has no tokens.
type WorkerPool struct {
	free atomic.Int64
}

// NewWorkerPool returns a pool with free tokens available.
func NewWorkerPool(free int) *WorkerPool {
	p := new(WorkerPool)
	p.free.Store(int64(max(free, 0)))
	return p
}

// TryAcquire takes a token if one is free, without waiting.
func (p *WorkerPool) TryAcquire() bool {
	if p == nil {
		return false
	}
	for {
		n := p.free.Load()
		if n <= 0 {
			return false
		}
		if p.free.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// Release gives a token back (or adds one: the scheduler's idle
// goroutines).
func (p *WorkerPool) Release() {
	if p != nil {
		p.free.Add(1)
	}
}

// Free reports the tokens free now.
func (p *WorkerPool) Free() int {
	if p == nil {
		return 0
	}
	return int(p.free.Load())
}

// SharedWorkers is implemented by a format Archive whose decoders can
// borrow goroutines from a WorkerPool. The root calls SetWorkerPool
// before it decodes several units at once (and SetWorkerPool(nil) after);
// readers opened meanwhile take their extra goroutines from p, up to the
// Config.Workers of the archive, instead of the fixed share that
// EntryWorkers gives. Safe for concurrent use.
type SharedWorkers interface {
	SetWorkerPool(p *WorkerPool)
}
