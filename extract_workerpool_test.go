package unarc

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
)

// poolFake is a fake archive that shares a worker budget (arc.SharedWorkers)
// and records the pools it is given.
type poolFake struct {
	*fakeArchive
	mu    sync.Mutex
	set   []*arc.WorkerPool
	inUse *arc.WorkerPool
	opens int // entries opened while a pool was set
}

func (f *poolFake) SetWorkerPool(p *arc.WorkerPool) {
	f.mu.Lock()
	f.set = append(f.set, p)
	f.inUse = p
	f.mu.Unlock()
}

func (f *poolFake) Open(i int) (io.ReadCloser, error) {
	f.mu.Lock()
	if f.inUse != nil {
		f.opens++
	}
	f.mu.Unlock()
	return f.fakeArchive.Open(i)
}

// TestSharedWorkerPool: a parallel Extract and Verify hand a format that
// can share workers one pool for the run, which gets a token for each
// worker slot as it runs out of units (so at the end it holds them all),
// and take it back afterwards; a sequential run hands none.
func TestSharedWorkerPool(t *testing.T) {
	var list []fakeEntry
	for i := range 7 {
		list = append(list, file(fmt.Sprintf("f%d", i), fmt.Sprintf("content %d", i)))
	}
	for _, workers := range []int{1, 2, 3, 8} {
		for _, verify := range []bool{false, true} {
			a := newFakeOpts([]Option{WithWorkers(workers)}, list...)
			pf := &poolFake{fakeArchive: a.a.(*fakeArchive)}
			a.a = pf
			var err error
			if verify {
				_, err = a.Verify(context.Background())
			} else {
				err = a.Extract(context.Background(), t.TempDir())
			}
			if err != nil {
				t.Fatal(err)
			}
			if workers == 1 {
				if len(pf.set) != 0 {
					t.Fatalf("sequential run: pools %v set", pf.set)
				}
				continue
			}
			if len(pf.set) != 2 || pf.set[0] == nil || pf.set[1] != nil {
				t.Fatalf("workers %d, verify %v: pools set %v, want one then nil", workers, verify, pf.set)
			}
			if pf.opens != len(list) {
				t.Fatalf("workers %d: %d of %d entries opened with the pool set", workers, pf.opens, len(list))
			}
			if got := pf.set[0].Free(); got != workers {
				t.Fatalf("workers %d, verify %v: the pool holds %d tokens at the end, want %d", workers, verify, got, workers)
			}
		}
	}
}
