package unpack29

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestStandardFilterFingerprints: unpack29 recognises a filter program by
// exactly what unrar recognises it by (rarvm.cpp RarVM::Prepare: the XOR
// checksum byte, then StdList's code length and CRC-32), and nothing
// else: a program of a standard length whose CRC differs, or a standard
// CRC at another length, is custom code.
func TestStandardFilterFingerprints(t *testing.T) {
	// unrar 6.22 rarvm.cpp StdList, as data.
	unrar := map[[2]uint32]filterKind{
		{53, 0xad576887}: filterE8, {57, 0x3cd7e57e}: filterE8E9, {120, 0x3769893f}: filterItanium,
		{29, 0x0e06077d}: filterDelta, {149, 0x1c2c5dc8}: filterRGB, {216, 0xbc85e701}: filterAudio,
	}
	if len(standardFilters) != len(unrar) {
		t.Fatalf("%d standard filters, unrar has %d", len(standardFilters), len(unrar))
	}
	for _, s := range standardFilters {
		if k, ok := unrar[[2]uint32{s.length, s.crc}]; !ok || k != s.kind {
			t.Errorf("filter %d: length %d CRC %08x is not unrar's", s.kind, s.length, s.crc)
		}
	}
	// A program of each standard length with the right checksum byte but
	// other content is not taken for the standard filter.
	for _, s := range standardFilters {
		prog := make([]byte, s.length)
		for i := range prog {
			prog[i] = byte(i*31 + 7)
		}
		prog[0] = 0
		for _, c := range prog[1:] {
			prog[0] ^= c
		}
		if crc32.ChecksumIEEE(prog) == s.crc {
			t.Fatal("test program collides")
		}
		if k, err := classify(prog); !errors.Is(err, errs.ErrUnsupported) {
			t.Errorf("length %d, other CRC: kind %d, %v; want unsupported", s.length, k, err)
		}
	}
}

// TestStandardFilterBadParams: a standard filter with parameters outside
// its range leaves its block unfiltered, as unrar's ExecuteStandardFilter
// does by returning false (the unfiltered VM memory is written and the
// entry's checksum decides); it is not refused.
func TestStandardFilterBadParams(t *testing.T) {
	block := func(n int) []byte {
		b := make([]byte, 2*n+8)
		for i := range b[:n] {
			b[i] = byte(i*13 + 1)
		}
		return b
	}
	for _, tc := range []struct {
		kind filterKind
		n    int
		r0   uint32
		r1   uint32
	}{
		{filterE8, 3, 0, 0},
		{filterE8E9, 2, 0, 0},
		{filterItanium, 20, 0, 0},
		{filterDelta, 100, 0, 0},
		{filterDelta, 100, 1025, 0},
		{filterRGB, 100, 2, 0},   // width wraps below 3
		{filterRGB, 100, 200, 0}, // width past the block
		{filterRGB, 100, 10, 3},  // posR
		{filterRGB, 2, 6, 0},     // block under 3 bytes
		{filterAudio, 100, 0, 0},
		{filterAudio, 100, 129, 0},
	} {
		t.Run(fmt.Sprintf("kind%d_n%d_r%d_%d", tc.kind, tc.n, tc.r0, tc.r1), func(t *testing.T) {
			mem := block(tc.n)
			want := append([]byte(nil), mem[:tc.n]...)
			r := [7]uint32{tc.r0, tc.r1}
			out, err := applyFilter(tc.kind, mem, tc.n, &r, 0)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !bytes.Equal(out, want) {
				t.Error("block changed")
			}
		})
	}
	// In range, the filters do change the block (the check above is not
	// vacuous).
	mem := block(100)
	r := [7]uint32{3}
	out, err := applyFilter(filterDelta, mem, 100, &r, 0)
	if err != nil || bytes.Equal(out, mem[:100]) {
		t.Errorf("delta in range: %v, unchanged %v", err, bytes.Equal(out, mem[:100]))
	}
}
