package inorder

import (
	"testing"
	"time"
)

func TestOrder(t *testing.T) {
	q := Queue[int]{Max: 3}
	var got []int
	for i := range 20 {
		if v, ok := q.Add(i, func(i int) { time.Sleep(time.Duration(20-i) * time.Millisecond / 4) }); ok {
			got = append(got, v)
		}
		if q.Len() > 3 {
			t.Fatalf("%d jobs in flight", q.Len())
		}
	}
	for v, ok := q.Next(); ok; v, ok = q.Next() {
		got = append(got, v)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("got %v", got)
		}
	}
	if len(got) != 20 {
		t.Fatalf("%d jobs back", len(got))
	}
}
