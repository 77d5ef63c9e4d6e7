package lzma

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

func TestDecodeProps(t *testing.T) {
	tests := []struct {
		in      []byte
		want    Props
		wantErr error
	}{
		{[]byte{0x5D, 0, 0, 0x80, 0}, Props{LC: 3, LP: 0, PB: 2, DictSize: 8 << 20}, nil},
		{[]byte{0, 0, 0x10, 0, 0}, Props{DictSize: 1 << 12}, nil},
		{[]byte{224, 0xFF, 0xFF, 0xFF, 0xFF}, Props{LC: 8, LP: 4, PB: 4, DictSize: 1<<32 - 1}, nil},
		{[]byte{225, 0, 0, 0, 0}, Props{}, errs.ErrCorrupt},
		{[]byte{0x5D, 0, 0}, Props{}, errs.ErrCorrupt},
	}
	for _, tt := range tests {
		got, err := DecodeProps(tt.in)
		if !errors.Is(err, tt.wantErr) || err == nil && got != tt.want {
			t.Errorf("DecodeProps(%x) = %+v, %v; want %+v, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil {
			if e := got.Encode(); !bytes.Equal(e[:], tt.in) {
				t.Errorf("Encode(%+v) = %x, want %x", got, e, tt.in)
			}
		}
	}
}

func TestDictSizeLZMA2(t *testing.T) {
	tests := []struct {
		b    byte
		want int64
	}{
		{0, 4 << 10}, {1, 6 << 10}, {18, 2 << 20}, {22, 8 << 20}, {23, 12 << 20}, {39, 3 << 30}, {40, 1<<32 - 1},
	}
	for _, tt := range tests {
		if got, err := DictSizeLZMA2(tt.b); err != nil || got != tt.want {
			t.Errorf("DictSizeLZMA2(%d) = %d, %v; want %d", tt.b, got, err, tt.want)
		}
	}
	if _, err := DictSizeLZMA2(41); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("DictSizeLZMA2(41): err = %v", err)
	}
}

// TestLZMA2Framing runs hand-built LZMA2 streams through the chunk rules.
func TestLZMA2Framing(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		size    int64
		want    string
		wantErr error
	}{
		{"empty stream", []byte{0}, -1, "", nil},
		{"stored", []byte{1, 0, 2, 'a', 'b', 'c', 2, 0, 0, 'd', 0}, -1, "abcd", nil},
		{"stored sized", []byte{1, 0, 2, 'a', 'b', 'c', 0}, 3, "abc", nil},
		{"sized without end byte", []byte{1, 0, 2, 'a', 'b', 'c'}, 3, "abc", nil},
		{"no input", nil, -1, "", errs.ErrTruncated},
		{"no end byte", []byte{1, 0, 2, 'a', 'b', 'c'}, -1, "abc", errs.ErrTruncated},
		{"cut stored chunk", []byte{1, 0, 2, 'a'}, -1, "a", errs.ErrTruncated},
		{"cut header", []byte{0xE0, 0}, -1, "", errs.ErrTruncated},
		{"bad control", []byte{3}, -1, "", errs.ErrCorrupt},
		{"first without dict reset", []byte{2, 0, 0, 'a', 0}, -1, "", errs.ErrCorrupt},
		{"lzma first without dict reset", []byte{0xC0, 0, 0, 0, 5, 0x5D, 0, 0, 0, 0, 0, 0}, -1, "", errs.ErrCorrupt},
		{"lzma without props after stored", []byte{1, 0, 0, 'a', 0xA0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0}, -1, "a", errs.ErrCorrupt},
		{"bad props", []byte{0xE0, 0, 0, 0, 5, 225, 0, 0, 0, 0, 0, 0}, -1, "", errs.ErrCorrupt},
		{"lc+lp over 4", []byte{0xE0, 0, 0, 0, 5, 9*1 + 4, 0, 0, 0, 0, 0, 0}, -1, "", errs.ErrCorrupt},
		{"past size", []byte{1, 0, 2, 'a', 'b', 'c', 0}, 2, "", ErrPastSize},
		{"short of size", []byte{1, 0, 2, 'a', 'b', 'c', 0}, 4, "abc", errs.ErrCorrupt},
	}
	for _, tt := range tests {
		z, err := NewReader2(bytes.NewReader(tt.in), 1<<16, tt.size)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if !errors.Is(err, tt.wantErr) || tt.wantErr == nil && err != nil {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
		if string(got) != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestClosed checks that a closed reader fails and a Reset one works.
func TestClosed(t *testing.T) {
	z, err := NewReader2(bytes.NewReader([]byte{1, 0, 0, 'a', 0}), 1<<16, -1)
	if err != nil {
		t.Fatal(err)
	}
	z.Close()
	if _, err := z.Read(make([]byte, 1)); err != ErrClosed {
		t.Fatalf("Read after Close: %v", err)
	}
	if err := z.Reset(bytes.NewReader([]byte{1, 0, 0, 'b', 0}), 1<<16, -1); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(z); err != nil || string(b) != "b" {
		t.Fatalf("after Reset: %q, %v", b, err)
	}
}

func TestInvalidOptions(t *testing.T) {
	for name, o := range map[string]Option{
		"MaxDict(-1)":  MaxDict(-1),
		"EndMarker(9)": EndMarker(Marker(9)),
	} {
		if _, err := NewReader2(bytes.NewReader([]byte{0}), 1<<16, -1, o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("NewReader2 with %s: %v", name, err)
		}
		if _, err := NewReader(bytes.NewReader(nil), Props{LC: 3, PB: 2, DictSize: 1 << 16}, -1, o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("NewReader with %s: %v", name, err)
		}
	}
}
