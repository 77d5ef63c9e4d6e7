package pool

import (
	"runtime"
	"slices"
	"testing"
)

func TestGetPut(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 4096, 5000, 1 << 20} {
		p := Get(n)
		if len(*p) != n {
			t.Fatalf("Get(%d): len %d", n, len(*p))
		}
		if c := cap(*p); c < n || c&(c-1) != 0 {
			t.Fatalf("Get(%d): cap %d is not a power of two >= n", n, c)
		}
		Put(p)
	}
	Put(nil)
	odd := make([]byte, 300)
	Put(&odd) // not a pool size: dropped, must not be handed out as 512
	if p := Get(300); cap(*p) != 512 {
		t.Fatalf("cap %d", cap(*p))
	}
}

func TestNoAllocsWhenWarm(t *testing.T) {
	Put(Get(64 << 10))
	if a := testing.AllocsPerRun(100, func() { Put(Get(40 << 10)) }); a > 0.5 { // a GC may empty the pool once
		t.Errorf("%v allocs per Get/Put once warm", a)
	}
}

func TestOf(t *testing.T) {
	type table [16]int
	made := 0
	o := Of[table]{New: func() *table { made++; return new(table) }}
	a := o.Get()
	o.Put(a)
	o.Put(nil)
	if b := o.Get(); b == nil || made == 0 {
		t.Fatal("Of.Get")
	}
}

func TestBigSurvivesGC(t *testing.T) {
	Release()
	p := Get(8 << 20)
	Put(p)
	runtime.GC()
	runtime.GC()
	if q := Get(6 << 20); q != p {
		t.Error("a large buffer did not survive two GCs")
	}
	// Small classes too: a 4 KiB input buffer lost at a GC is a 4 KiB
	// allocation in the middle of some extraction.
	for _, n := range []int{256, 4096, 40 << 10} {
		p := Get(n)
		Put(p)
		runtime.GC()
		runtime.GC()
		if q := Get(n); q != p {
			t.Errorf("a %d-byte buffer did not survive two GCs", n)
		}
	}
	// The free list is bounded: more than bigPerClass buffers go to the
	// sync.Pool.
	var ps []*[]byte
	for i := 0; i < bigPerClass+3; i++ {
		ps = append(ps, Get(2<<20))
	}
	for _, p := range ps {
		Put(p)
	}
	big.Lock()
	n := len(big.free[21])
	big.Unlock()
	if n != bigPerClass {
		t.Errorf("%d buffers kept in class 2 MiB, want %d", n, bigPerClass)
	}
	Release()
	if big.retained != 0 {
		t.Error("Release kept memory")
	}
}

// TestOfSurvivesGC: a few typed values stay on Of's free list through
// GCs and across goroutines (a sync.Pool drops them at GC and hides a
// P-private one from other Ps), the list is bounded, and Release
// empties it.
func TestOfSurvivesGC(t *testing.T) {
	type table [1024]int
	made := 0
	var o Of[table]
	o.New = func() *table { made++; return new(table) }
	var vs []*table
	for range ofKeep + 2 {
		vs = append(vs, o.Get())
	}
	for _, v := range vs {
		o.Put(v)
	}
	runtime.GC()
	runtime.GC()
	made = 0
	done := make(chan *table)
	go func() { done <- o.Get() }() // another goroutine, maybe another P
	got := map[*table]bool{<-done: true}
	for range ofKeep - 1 {
		got[o.Get()] = true
	}
	if made != 0 || len(got) != ofKeep {
		t.Errorf("after two GCs: %d values made, %d distinct kept; want 0 and %d", made, len(got), ofKeep)
	}
	for v := range got {
		if !slices.Contains(vs, v) {
			t.Error("Get returned a value that was never Put")
		}
		o.Put(v)
	}
	Release()
	o.mu.Lock()
	n := len(o.free)
	o.mu.Unlock()
	if n != 0 {
		t.Errorf("Release kept %d values", n)
	}
}
