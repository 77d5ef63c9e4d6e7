package ppmd

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestOverhead: Overhead covers the model type (the block-sum cache
// included) and what checkHeap allocates for a restored arena.
func TestOverhead(t *testing.T) {
	const mem = 1 << 20
	if o := Overhead(mem); o < int64(unsafe.Sizeof(Model{}))+mem/unitSize {
		t.Fatalf("Overhead(%d) = %d, below the model (%d) and a depth byte per unit", mem, o, unsafe.Sizeof(Model{}))
	}
	// checkHeap on an empty model: what it allocates besides its work
	// stack (a few contexts here) is checkHeapMem.
	m := NewModel()
	if err := m.Init(6, mem); err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	v := m.vars()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := v.checkHeap(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := int64(after.TotalAlloc - before.TotalAlloc)
	if want := checkHeapMem(mem); got > want+1<<10 {
		t.Errorf("checkHeap allocated %d bytes, checkHeapMem says %d", got, want)
	}
}
