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
)

// Plan is the work of one run: Items are the item numbers to process, in
// the order they are delivered; Unit[k] labels the unit of Items[k]
// (equal labels: one unit, run in order on one goroutine).
type Plan struct {
	Items []int
	Unit  []int
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
	// Group positions by unit, units in the order of their first item.
	index := make(map[int]int, n)
	var groups [][]int
	for k, u := range p.Unit {
		g, ok := index[u]
		if !ok {
			g = len(groups)
			index[u] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], k)
	}
	workers = min(workers, len(groups))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make([]chan struct{}, n)
	ran := make([]bool, n)
	for k := range done {
		done[k] = make(chan struct{})
	}
	next := make(chan []int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				for _, k := range g {
					if ctx.Err() == nil {
						work(ctx, p.Items[k])
						ran[k] = true
					}
					close(done[k])
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for _, g := range groups {
			select {
			case next <- g:
			case <-ctx.Done():
				// Nothing more starts; the items of the groups left are
				// never worked on, and nobody waits for them.
				return
			}
		}
	}()
	delivered := 0
loop:
	for k := range n {
		select {
		case <-done[k]:
		case <-ctx.Done():
			break loop
		}
		if !ran[k] || ctx.Err() != nil {
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
