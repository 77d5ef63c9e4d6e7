package rarbits

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// script feeds ReadLengths symbols and bit fields in order.
type script struct {
	syms []int
	bits []uint32
	err  error // returned once syms run out
}

func (s *script) Bits(k uint) uint32 {
	if len(s.bits) == 0 {
		panic("bits read past the script")
	}
	v := s.bits[0] & (1<<k - 1)
	s.bits = s.bits[1:]
	return v
}

func (s *script) LengthSym() (int, error) {
	if len(s.syms) == 0 {
		return 0, s.err
	}
	c := s.syms[0]
	s.syms = s.syms[1:]
	return c, nil
}

func (s *script) Corrupt(what string) error { return errs.Corrupt("test: %s", what) }

func TestReadLengths(t *testing.T) {
	errEnd := errors.New("input ran out")
	cases := []struct {
		name string
		n    int
		old  []byte
		runs []LengthRun
		syms []int
		bits []uint32
		want []byte
		err  error
	}{
		{"literals", 3, nil, LengthRuns29[:], []int{1, 15, 0}, nil, []byte{1, 15, 0}, nil},
		{"deltas mod 16", 3, []byte{15, 1, 0}, LengthRuns29[:], []int{2, 15, 0}, nil, []byte{1, 0, 0}, nil},
		{"v29 repeat 3+3", 8, nil, LengthRuns29[:], []int{7, 16}, []uint32{4}, []byte{7, 7, 7, 7, 7, 7, 7, 7}, nil},
		{"v29 repeat 11+7", 13, nil, LengthRuns29[:], []int{5, 17, 3}, []uint32{0}, []byte{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 3}, nil},
		{"v29 zeros 3+3", 5, nil, LengthRuns29[:], []int{18, 9, 4}, []uint32{0}, []byte{0, 0, 0, 9, 4}, nil},
		{"v29 zeros 11+7 cut", 4, []byte{1, 1, 1, 1}, LengthRuns29[:], []int{19}, []uint32{100}, []byte{0, 0, 0, 0}, nil},
		{"v20 repeat 3+2", 8, nil, LengthRuns20[:], []int{2, 16, 4}, []uint32{7}, []byte{2, 2, 2, 2, 2, 2, 2, 4}, nil}, // 7 read as 2 bits is 3
		{"v20 zeros 3+3 and 11+7", 15, nil, LengthRuns20[:], []int{17, 18, 6}, []uint32{0, 0}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6}, nil},
		{"repeat at start", 3, nil, LengthRuns29[:], []int{16}, []uint32{0}, nil, errs.ErrCorrupt},
		{"v20 has no symbol 19", 3, nil, LengthRuns20[:], []int{19}, nil, nil, errs.ErrCorrupt},
		{"source error", 3, nil, LengthRuns29[:], []int{1}, nil, nil, errEnd},
	}
	for _, tc := range cases {
		dst := make([]byte, tc.n)
		src := &script{syms: tc.syms, bits: tc.bits, err: errEnd}
		err := ReadLengths(dst, tc.old, tc.runs, src)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: got %v, want %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !bytes.Equal(dst, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.name, dst, err, tc.want)
		}
		if len(src.syms) != 0 || len(src.bits) != 0 {
			t.Errorf("%s: %d symbols and %d bit fields left unread", tc.name, len(src.syms), len(src.bits))
		}
	}
	if len(cases) != 11 {
		t.Fatalf("%d cases", len(cases))
	}
}

func TestReadBitLengths(t *testing.T) {
	// 3, 15 (escaped), 4 zeros (15 then 2), 14, then 13 zeros and a cut run.
	in := []uint32{3, 15, 0, 15, 2, 14, 15, 11, 15, 15}
	var got [20]byte
	ReadBitLengths(&got, func(k uint) uint32 {
		if k != 4 {
			t.Fatalf("read %d bits", k)
		}
		v := in[0]
		in = in[1:]
		return v
	})
	want := [20]byte{3, 15, 0, 0, 0, 0, 14}
	if got != want || len(in) != 2 {
		t.Errorf("got %v with %d fields left, want %v with 2", got, len(in), want)
	}
}
