package pool

import "testing"

// TestTryGet: TryGet hands out only a kept buffer of the right class and
// never allocates one.
func TestTryGet(t *testing.T) {
	Release()
	defer Release()
	const n = 3 << 20 // class 4 MiB
	if p := TryGet(n); p != nil {
		t.Fatalf("TryGet on an empty list gave a buffer of cap %d", cap(*p))
	}
	p := Get(n)
	(*p)[0] = 42
	Put(p)
	if q := TryGet(1 << 20); q != nil {
		t.Fatalf("TryGet(1 MiB) gave a buffer of cap %d from another class", cap(*q))
	}
	q := TryGet(n)
	if q == nil {
		t.Fatal("TryGet missed the kept buffer")
	}
	if len(*q) != n || cap(*q) != 4<<20 || &(*q)[0] != &(*p)[:1][0] {
		t.Fatalf("TryGet gave len %d cap %d, not the kept buffer", len(*q), cap(*q))
	}
	if r := TryGet(n); r != nil {
		t.Fatal("TryGet gave the same buffer twice")
	}
	Put(q)
	if a := testing.AllocsPerRun(100, func() { Put(TryGet(n)) }); a != 0 {
		t.Errorf("TryGet/Put: %v allocs", a)
	}
	if p := TryGet(1000); p != nil {
		t.Error("TryGet of a small class gave a buffer")
	}
	if p := TryGet(-1); p != nil {
		t.Error("TryGet(-1) gave a buffer")
	}
}
