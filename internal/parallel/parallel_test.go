package parallel

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// plan makes n items in units of the given sizes, item numbers offset
// so that items and positions differ.
func plan(sizes ...int) Plan {
	var p Plan
	for u, s := range sizes {
		for range s {
			p.Items = append(p.Items, 100+len(p.Items))
			p.Unit = append(p.Unit, u*7)
		}
	}
	return p
}

func TestRunOrderAndUnits(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		p := plan(1, 3, 1, 1, 5, 2, 1, 1, 1, 4)
		unitOf := map[int]int{}
		for k, it := range p.Items {
			unitOf[it] = p.Unit[k]
		}
		var mu sync.Mutex
		busy := map[int]bool{} // unit -> an item of it is running
		last := map[int]int{}  // unit -> last item run
		var live, peak atomic.Int32
		work := func(ctx context.Context, it int) {
			n := live.Add(1)
			for {
				m := peak.Load()
				if n <= m || peak.CompareAndSwap(m, n) {
					break
				}
			}
			u := unitOf[it]
			mu.Lock()
			if busy[u] {
				t.Errorf("workers=%d: two items of unit %d at once", workers, u)
			}
			if l, ok := last[u]; ok && l > it {
				t.Errorf("workers=%d: unit %d ran %d after %d", workers, u, it, l)
			}
			busy[u], last[u] = true, it
			mu.Unlock()
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			mu.Lock()
			busy[u] = false
			mu.Unlock()
			live.Add(-1)
		}
		var got []int
		und := Run(context.Background(), workers, p, work, func(it int) bool { got = append(got, it); return true })
		if !slices.Equal(got, p.Items) {
			t.Errorf("workers=%d: delivered %v, want %v", workers, got, p.Items)
		}
		if und != nil {
			t.Errorf("workers=%d: undelivered %v", workers, und)
		}
		if int(peak.Load()) > max(workers, 1) {
			t.Errorf("workers=%d: %d items ran at once", workers, peak.Load())
		}
		if workers > 1 && peak.Load() < 2 {
			t.Logf("workers=%d: never ran two at once (loaded machine?)", workers)
		}
	}
}

// TestRunParallel checks that units really overlap: with 4 units that
// each wait for all 4 to have started, only a parallel run finishes.
func TestRunParallel(t *testing.T) {
	p := plan(1, 1, 1, 1)
	var wg sync.WaitGroup
	wg.Add(4)
	ok := make(chan bool, 4)
	work := func(ctx context.Context, it int) {
		wg.Done()
		c := make(chan struct{})
		go func() { wg.Wait(); close(c) }()
		select {
		case <-c:
			ok <- true
		case <-time.After(5 * time.Second):
			ok <- false
		}
	}
	Run(context.Background(), 4, p, work, func(int) bool { return true })
	for range 4 {
		if !<-ok {
			t.Fatal("the four units did not run at the same time")
		}
	}
}

func TestRunStop(t *testing.T) {
	for _, workers := range []int{1, 4} {
		p := plan(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
		var ran atomic.Int32
		var got []int
		und := Run(context.Background(), workers, p, func(ctx context.Context, it int) {
			ran.Add(1)
			time.Sleep(time.Millisecond)
		}, func(it int) bool {
			got = append(got, it)
			return it != 102 // stop after the third
		})
		if !slices.Equal(got, []int{100, 101, 102}) {
			t.Errorf("workers=%d: delivered %v", workers, got)
		}
		// What ran and was not delivered is reported, nothing else.
		if int(ran.Load()) != 3+len(und) {
			t.Errorf("workers=%d: %d ran, %d undelivered", workers, ran.Load(), len(und))
		}
		for _, it := range und {
			if it <= 102 {
				t.Errorf("workers=%d: delivered item %d listed as undelivered", workers, it)
			}
		}
		if int(ran.Load()) > 3+workers+1 {
			t.Errorf("workers=%d: %d items ran after the stop", workers, ran.Load())
		}
	}
}

func TestRunCancel(t *testing.T) {
	p := plan(1, 1, 1, 1, 1, 1, 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 8)
	var sawCancel atomic.Int32
	go func() { <-started; cancel() }()
	var got []int
	Run(ctx, 3, p, func(ctx context.Context, it int) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			sawCancel.Add(1)
		case <-time.After(5 * time.Second):
		}
	}, func(it int) bool { got = append(got, it); return true })
	if len(got) != 0 {
		t.Errorf("delivered %v after cancel", got)
	}
	if sawCancel.Load() == 0 {
		t.Error("running work did not see the cancellation")
	}
}

// TestRunIdle: Idle is called once for each worker slot, as soon as it has
// no unit left: for the slots beyond the units at the start, then as each
// goroutine runs out, so by the time the last unit runs alone every other
// slot has been given back.
func TestRunIdle(t *testing.T) {
	for _, tc := range []struct{ workers, units int }{{1, 3}, {2, 1}, {2, 5}, {4, 2}, {8, 9}} {
		sizes := make([]int, tc.units)
		for i := range sizes {
			sizes[i] = 1 + i%3
		}
		p := plan(sizes...)
		last := p.Items[len(p.Items)-1]
		var idle atomic.Int32
		p.Idle = func() { idle.Add(1) }
		var waited atomic.Bool
		work := func(ctx context.Context, it int) {
			if it != last || tc.workers < 2 {
				return
			}
			// The last unit (taken last): every other slot runs out of
			// units while it runs and says so.
			for idle.Load() < int32(tc.workers-1) {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Millisecond):
				}
			}
			waited.Store(true)
		}
		Run(context.Background(), tc.workers, p, work, func(int) bool { return true })
		want := int32(max(tc.workers, 1))
		if tc.workers <= 1 {
			want = 0
		}
		if got := idle.Load(); got != want {
			t.Fatalf("workers %d, units %d: Idle called %d times, want %d", tc.workers, tc.units, got, want)
		}
		if tc.workers >= 2 && !waited.Load() {
			t.Fatalf("workers %d, units %d: the last unit never saw the others idle", tc.workers, tc.units)
		}
	}
}
