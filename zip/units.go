package zip

import "sync/atomic"

// Units implements arc.Units: every ZIP entry is compressed on its own,
// so each is a unit of its own.
func (a *Archive) Units() []int {
	u := make([]int, len(a.entries))
	for i := range u {
		u[i] = i
	}
	return u
}

// entryWorkers is the goroutines one entry's decoder may use (zstd, BZip2);
// 0 means Config.Workers.
type entryWorkers struct{ n atomic.Int32 }

// SetEntryWorkers implements arc.EntryWorkers.
func (a *Archive) SetEntryWorkers(n int) { a.workers.n.Store(int32(max(n, 1))) }

// entryWorkerCount is what an entry opened now may use.
func (a *Archive) entryWorkerCount() int {
	if n := a.workers.n.Load(); n > 0 {
		return int(n)
	}
	return max(a.cfg.Workers, 1)
}
