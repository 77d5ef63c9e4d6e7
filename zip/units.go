package zip

import (
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/engine"
)

var (
	_ engine.Units         = (*capable)(nil)
	_ engine.EntryWorkers  = (*capable)(nil)
	_ engine.SharedWorkers = (*capable)(nil)
)

// Units serves engine.Units: every ZIP entry is compressed on its own,
// so each is a unit of its own.
func (c *capable) Units() []int {
	a := (*Archive)(c)
	u := make([]int, len(a.entries))
	for i := range u {
		u[i] = i
	}
	return u
}

// entryWorkers is the goroutines one entry's decoder may use (zstd, BZip2);
// 0 means Config.Workers. With a pool, BZip2 takes its extra goroutines
// from it instead (up to Config.Workers).
type entryWorkers struct {
	n    atomic.Int32
	pool atomic.Pointer[engine.WorkerPool]
}

// SetEntryWorkers serves engine.EntryWorkers.
func (c *capable) SetEntryWorkers(n int) { c.workers.n.Store(int32(max(n, 1))) }

// SetWorkerPool serves engine.SharedWorkers: BZip2 entries opened while
// p is set borrow their extra goroutines from it.
func (c *capable) SetWorkerPool(p *engine.WorkerPool) { c.workers.pool.Store(p) }

// entryWorkerCount is what an entry opened now may use.
func (a *Archive) entryWorkerCount() int {
	if n := a.workers.n.Load(); n > 0 {
		return int(n)
	}
	return max(a.cfg.Workers, 1)
}
