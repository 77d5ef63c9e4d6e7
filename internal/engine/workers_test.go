package engine

import (
	"sync"
	"testing"
)

func TestWorkerPool(t *testing.T) {
	var nilPool *WorkerPool
	if nilPool.TryAcquire() || nilPool.Free() != 0 {
		t.Fatal("a nil pool has tokens")
	}
	nilPool.Release() // no panic
	p := NewWorkerPool(3)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if p.TryAcquire() {
					mu.Lock()
					got++
					if got > 3 {
						t.Errorf("%d tokens out of 3", got)
					}
					mu.Unlock()
					mu.Lock()
					got--
					mu.Unlock()
					p.Release()
				}
			}
		}()
	}
	wg.Wait()
	if p.Free() != 3 {
		t.Fatalf("%d free after all came back, want 3", p.Free())
	}
	for range 3 {
		if !p.TryAcquire() {
			t.Fatal("a free token was refused")
		}
	}
	if p.TryAcquire() {
		t.Fatal("a fourth token was given")
	}
	if NewWorkerPool(-2).Free() != 0 {
		t.Fatal("a negative pool has tokens")
	}
}
