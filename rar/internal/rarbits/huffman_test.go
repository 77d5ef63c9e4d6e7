package rarbits

import (
	"slices"
	"testing"
)

// TestCanonical: the layout of a small code, by hand. Lengths (symbol:
// length) 0:2 1:1 2:3 3:3 4:0 give the codes 1:0, 0:10, 2:110, 3:111.
func TestCanonical(t *testing.T) {
	var limit [MaxCodeLen + 1]uint32
	var pos [MaxCodeLen + 1]uint16
	syms := []uint16{9, 9, 9, 9, 9, 9}
	if Canonical([]byte{2, 1, 3, 3, 0}, &limit, &pos, syms) {
		t.Fatal("complete code reported over-subscribed")
	}
	wantLimit := [MaxCodeLen + 1]uint32{0, 0x8000, 0xc000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000, 0x10000}
	if limit != wantLimit {
		t.Errorf("limit %x", limit)
	}
	if pos[1] != 0 || pos[2] != 1 || pos[3] != 2 || pos[4] != 4 || pos[15] != 4 {
		t.Errorf("pos %v", pos)
	}
	if !slices.Equal(syms, []uint16{1, 0, 2, 3, 0, 9}) {
		t.Errorf("syms %v (past the code: 0; past the lengths: untouched)", syms)
	}
	// Lengths use their low 4 bits; one code too many over-subscribes.
	if !Canonical([]byte{0x11, 1, 2}, &limit, &pos, syms) {
		t.Error("1,1,2 not over-subscribed")
	}
	if Canonical([]byte{1, 0, 0, 15}, &limit, &pos, syms) {
		t.Error("an incomplete code reported over-subscribed")
	}
	var h Huffman
	if err := h.Build([]byte{1, 1, 1}); err == nil {
		t.Error("Build accepted an over-subscribed code")
	}
	if err := h.Build([]byte{2, 1, 3, 3}); err != nil || h.Quick[0] != 1<<4|1 || h.Quick[1<<(QuickBits-1)] != 0<<4|2 || h.Quick[1<<QuickBits-1] != 3<<4|3 {
		t.Errorf("Build quick table: %v %x %x %x", err, h.Quick[0], h.Quick[1<<(QuickBits-1)], h.Quick[1<<QuickBits-1])
	}
}
