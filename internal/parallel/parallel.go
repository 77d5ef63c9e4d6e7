// Package parallel runs per-entry work on several goroutines while the
// caller sees the results in entry order: the scheduler behind the
// root's parallel Extract and test (and Verify).
//
// Items are grouped into units (entries that share decoder state: a
// solid stream, a 7z folder). The items of one unit run in item order on
// one goroutine; different units run concurrently on up to Workers
// goroutines, taken in the order of their first item, so at most Workers
// decoders are live. Each item's result is handed to the caller's
// deliver function on the calling goroutine, in item order, as soon as
// it and every item before it are done.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// Plan is the work of one run: Items are the item numbers to process, in
// the order they are delivered; Unit[k] labels the unit of Items[k]
// (equal labels: one unit, run in order on one goroutine).
type Plan struct {
	Items []int
	Unit  []int
	// Idle, when set, is called once for each of the workers goroutines
	// Run may use as soon as it has no unit left to take: at the start
	// for those beyond the number of units, and by each goroutine that
	// finds no more units (before it exits). A shared worker budget
	// (engine.WorkerPool) gets its tokens back through it, so that the
	// units still running can use the idle cores.
	Idle func()
}

// Units counts the distinct units of p.
func (p *Plan) Units() int {
	seen := make(map[int]struct{}, len(p.Unit))
	for _, u := range p.Unit {
		seen[u] = struct{}{}
	}
	return len(seen)
}

// Run calls work(ctx, item) for every item of p on up to workers
// goroutines, and deliver(item) on the calling goroutine, in the order
// of p.Items, each after its work returned. When deliver returns false,
// or ctx is cancelled, no further work starts: work already running sees
// its ctx cancelled, Run waits for it, and deliver is not called again.
// Run returns once every goroutine it started has finished; work for
// items that are never delivered has still finished by then (the caller
// cleans up after them with the undelivered list Run returns: items whose
// work ran but that were not delivered).
//
// workers <= 1 runs everything on the calling goroutine, one item after
// the other (work then deliver), with no goroutine started.
func Run(ctx context.Context, workers int, p Plan, work func(ctx context.Context, item int), deliver func(item int) bool) (undelivered []int) {
	n := len(p.Items)
	if workers <= 1 || n <= 1 {
		if p.Idle != nil && workers > 1 {
			for range workers - 1 {
				p.Idle() // everything runs on the calling goroutine
			}
			defer p.Idle()
		}
		for _, it := range p.Items {
			if ctx.Err() != nil {
				return nil
			}
			work(ctx, it)
			if !deliver(it) {
				return nil
			}
		}
		return nil
	}
	// Group positions by unit, units in the order of their first item:
	// group g is flat[start[g]:start[g+1]] (three allocations, however
	// many units).
	index := make(map[int]int, n)
	gid := make([]int, n)
	var count []int
	for k, u := range p.Unit {
		g, ok := index[u]
		if !ok {
			g = len(count)
			index[u] = g
			count = append(count, 0)
		}
		gid[k] = g
		count[g]++
	}
	start := make([]int, len(count)+1)
	for g, c := range count {
		start[g+1] = start[g] + c
	}
	flat := make([]int, n)
	fill := count // reused: the next free slot of each group
	for g := range fill {
		fill[g] = start[g]
	}
	for k, g := range gid {
		flat[fill[g]] = k
		fill[g]++
	}
	groups := len(count)
	if p.Idle != nil {
		for range workers - groups {
			p.Idle()
		}
	}
	workers = min(workers, groups)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// One lock and condition for every item's completion (no channel
	// per item): done[k] says item k's work returned, ran[k] that it ran.
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	done := make([]bool, n)
	ran := make([]bool, n)
	stopped := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		cond.Broadcast()
	})
	defer stop()
	var next atomic.Int64 // the next group to take
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				g := int(next.Add(1) - 1)
				if g >= groups || ctx.Err() != nil {
					if p.Idle != nil {
						p.Idle()
					}
					return
				}
				for _, k := range flat[start[g]:start[g+1]] {
					r := false
					if ctx.Err() == nil {
						work(ctx, p.Items[k])
						r = true
					}
					mu.Lock()
					done[k], ran[k] = true, r
					mu.Unlock()
					cond.Broadcast()
				}
			}
		}()
	}
	delivered := 0
	for k := range n {
		mu.Lock()
		for !done[k] && !stopped {
			cond.Wait()
		}
		ok := done[k] && ran[k] && !stopped
		mu.Unlock()
		// (stopped is set by a goroutine of AfterFunc, maybe after the
		// work saw the cancellation: ask ctx itself too.)
		ok = ok && ctx.Err() == nil
		if !ok {
			break
		}
		delivered = k + 1
		if !deliver(p.Items[k]) {
			break
		}
	}
	cancel()
	wg.Wait()
	for k := delivered; k < n; k++ {
		if ran[k] {
			undelivered = append(undelivered, p.Items[k])
		}
	}
	return undelivered
}
