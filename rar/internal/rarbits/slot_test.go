package rarbits

import (
	"bytes"
	"testing"
)

// TestSlot: base plus k extra bits, MSB first; k = 0 takes nothing.
func TestSlot(t *testing.T) {
	var b Reader
	b.Reset(bytes.NewReader([]byte{0b1011_0011, 0xff, 0, 0, 0, 0, 0, 0}))
	defer b.Release()
	b.Fill()
	n := b.N
	if v := b.Slot(7, 0); v != 7 || b.N != n {
		t.Errorf("k=0: %d, %d bits used", v, n-b.N)
	}
	if v := b.Slot(10, 3); v != 10+0b101 {
		t.Errorf("k=3: %d", v)
	}
	if v := b.Slot(0, 5); v != 0b10011 || b.N != n-8 {
		t.Errorf("k=5: %d, %d bits used", v, n-b.N)
	}
}
