package unpack50

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
)

// bitWriter builds RAR 5 bit streams by hand (MSB first), for streams
// rar cannot be made to produce here, such as algorithm version 1
// distances beyond 4 GiB.
type bitWriter struct {
	b    []byte
	nbit int
}

func (w *bitWriter) put(v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		if w.nbit%8 == 0 {
			w.b = append(w.b, 0)
		}
		if v>>uint(i)&1 != 0 {
			w.b[len(w.b)-1] |= 0x80 >> uint(w.nbit%8)
		}
		w.nbit++
	}
}

// block wraps body bits as one block (header: flags, check byte, size).
func block(body *bitWriter, tables, last bool) []byte {
	size := len(body.b)
	used := body.nbit - (size-1)*8 // bits used in the last byte, 1..8
	flags := byte(used-1) | 1<<3   // two size bytes
	if tables {
		flags |= 0x80
	}
	if last {
		flags |= 0x40
	}
	sum := 0x5a ^ flags ^ byte(size) ^ byte(size>>8)
	return append([]byte{flags, sum, byte(size), byte(size >> 8)}, body.b...)
}

// writeTables writes a bit-length code with every length 5 (code i is
// symbol i) and then lens with it, one symbol per entry.
func writeTables(w *bitWriter, lens []byte) {
	for i := 0; i < bc; i++ {
		w.put(5, 4)
	}
	for _, l := range lens {
		w.put(uint64(l), 5)
	}
}

// TestExtraDist decodes a hand-made algorithm version 1 stream whose
// distance slot 70 (only in the 80-slot table of RAR 7) points 32 GiB
// back: unrar yields zeros for distances before the stream start.
func TestExtraDist(t *testing.T) {
	lens := make([]byte, nc+dcx+ldc+rc)
	lens['a'], lens['b'], lens[257], lens[262] = 2, 2, 2, 2 // codes 00 01 10 11
	lens[nc+0], lens[nc+70] = 1, 1                          // codes 0 1
	lens[nc+dcx+0], lens[nc+dcx+1] = 1, 1
	var w bitWriter
	writeTables(&w, lens)
	w.put(0b00, 2) // a
	w.put(0b01, 2) // b
	w.put(0b11, 2) // match, length slot 0: length 2
	w.put(1, 1)    // distance slot 70: 34 bits; 30 explicit, 4 from LDD
	w.put(0, 30)
	w.put(0, 1)    // LDD 0
	w.put(0b00, 2) // a
	w.put(0b10, 2) // repeat the last match
	w.put(0b01, 2) // b
	packed := block(&w, true, true)
	want := []byte("ab\x00\x00\x00\x00\x00a\x00\x00\x00\x00\x00b")

	d := NewDecoder()
	defer d.Close()
	if err := d.ResetVersion(bytes.NewReader(packed), 1, 1<<20, int64(len(want)), false); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(d)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if d.oldDist[0] != 1+1<<35 {
		t.Errorf("distance %d, want %d", d.oldDist[0], uint64(1+1<<35))
	}
	// Read as version 0 the table is 16 entries shorter, so the stream
	// means something else.
	if err := d.ResetVersion(bytes.NewReader(packed), 0, 1<<20, int64(len(want)), false); err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(d); bytes.Equal(got, want) {
		t.Error("version 0 decoded the version 1 stream the same way")
	}
}

// TestCompInfo checks the compression information decoding, including
// the RAR 7 dictionary fraction and the RAR 5 compatibility flag.
func TestCompInfo(t *testing.T) {
	tests := []struct {
		ci      uint64
		version int
		method  int
		solid   bool
		dict    int64
		err     bool
	}{
		{0<<10 | 3<<7, 0, 3, false, 128 << 10, false},
		{6<<10 | 5<<7 | 0x40, 0, 5, true, 8 << 20, false},
		{15 << 10, 0, 0, false, 4 << 30, false},
		{1 | 15<<10 | 8<<15, 1, 0, false, 4<<30 + 4<<30/32*8, false},
		{1 | 2<<10 | 1<<15 | ciRar5Compat, 0, 0, false, 512<<10 + 512<<10/32, false},
		{1 | 19<<10, 1, 0, false, 64 << 30, false},
		{1 | 20<<10, 1, 0, false, 0, true},
		{2, 2, 0, false, 0, true},
	}
	for _, tc := range tests {
		v, m, s, dict, err := CompInfo(tc.ci)
		if (err != nil) != tc.err {
			t.Errorf("%#x: err %v", tc.ci, err)
			continue
		}
		if err == nil && (v != tc.version || m != tc.method || s != tc.solid || dict != tc.dict) {
			t.Errorf("%#x: got %d %d %v %d, want %d %d %v %d", tc.ci, v, m, s, dict, tc.version, tc.method, tc.solid, tc.dict)
		}
	}
}

// TestFilterAcrossWrap hand-builds a stream for a 256 KiB window whose
// DELTA filter block straddles the point where the circular window wraps,
// with zero-filled matches (distances before the stream start) around it.
func TestFilterAcrossWrap(t *testing.T) {
	lens := make([]byte, nc+dcb+ldc+rc)
	for i := 0; i < 256; i++ {
		lens[i] = 9 // codes 100000000 + i
	}
	lens[256] = 2 // filter: 00
	lens[262] = 3 // length 2: 010
	lens[305] = 3 // length slot 43: 011
	lens[nc+63] = 1
	lens[nc+dcb+0] = 1
	var w bitWriter
	writeTables(&w, lens)
	zeros := func(extra uint64) { // 3586+extra+3 zero bytes
		w.put(0b011, 3)
		w.put(extra, 9)
		w.put(0, 1)  // distance slot 63: 1 + 3<<30 + ..., beyond the data
		w.put(0, 26) // explicit distance bits
		w.put(0, 1)  // LDD 0
	}
	const start = minWindow - 100
	var want []byte
	for i := 0; i < 63; i++ {
		zeros(511)
	}
	zeros(155)
	want = append(want, make([]byte, start)...)
	w.put(0b00, 2)        // filter
	w.put(0, 2)           // start: 1 byte
	w.put(0, 8)           //   0 bytes ahead
	w.put(0, 2)           // length: 1 byte
	w.put(200, 8)         //   200
	w.put(filterDelta, 3) // type
	w.put(0, 5)           // 1 channel
	var prev byte
	for i := 0; i < 200; i++ {
		w.put(0b100000000+uint64(i+1), 9)
		prev -= byte(i + 1)
		want = append(want, prev)
	}
	for i := 0; i < 9; i++ {
		zeros(511)
	}
	want = append(want, make([]byte, 9*4100)...)
	packed := block(&w, true, true)
	if len(packed) > 1<<16+4 {
		t.Fatalf("block of %d bytes needs three size bytes", len(packed))
	}

	for _, naive := range []bool{false, true} {
		d := NewDecoder()
		d.naive = naive
		if err := d.Reset(bytes.NewReader(packed), minWindow, int64(len(want)), false); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("naive=%v: %d bytes, want %d; first difference at %d", naive, len(got), len(want), i)
		}
		if d.linear() || d.filtersRun[filterDelta] != 1 {
			t.Errorf("window linear=%v, filters %v: the test misses its point", d.linear(), d.filtersRun)
		}
		d.Close()
	}
}

// TestCorruptStreams feeds hand-made malformed streams; each must fail
// with the right error class.
func TestCorruptStreams(t *testing.T) {
	simple := func(body func(w *bitWriter)) []byte {
		lens := make([]byte, nc+dcb+ldc+rc)
		lens['a'], lens[256] = 1, 1 // a: 0, filter: 1
		var w bitWriter
		writeTables(&w, lens)
		body(&w)
		return block(&w, true, true)
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, io.ErrUnexpectedEOF},
		{"header only", []byte{0xc8}, io.ErrUnexpectedEOF},
		{"bad check byte", []byte{0xc0, 0x00, 0x10, 0, 0, 0}, errs.ErrCorrupt},
		{"four size bytes", []byte{0xd8, 0x5a ^ 0xd8, 1, 0, 0, 0, 0}, errs.ErrCorrupt},
		{"no tables", func() []byte {
			var w bitWriter
			w.put(0, 16)
			return block(&w, false, true)
		}(), errs.ErrCorrupt},
		{"repeat at table start", func() []byte {
			var w bitWriter
			for i := 0; i < bc; i++ {
				w.put(5, 4)
			}
			w.put(16, 5) // repeat previous length: there is none
			w.put(0, 3)
			return block(&w, true, true)
		}(), errs.ErrCorrupt},
		{"unknown filter type", simple(func(w *bitWriter) {
			w.put(0, 1) // a
			w.put(1, 1) // filter
			w.put(0, 2) // start: 1 byte
			w.put(0, 8) //
			w.put(0, 2) // length: 1 byte
			w.put(4, 8) //
			w.put(5, 3) // type 5 does not exist
		}), errs.ErrCorrupt},
		{"truncated block", simple(func(w *bitWriter) {
			for i := 0; i < 100; i++ {
				w.put(0, 1)
			}
		})[:40], io.ErrUnexpectedEOF},
	}
	d := NewDecoder()
	defer d.Close()
	for _, tc := range tests {
		if err := d.Reset(bytes.NewReader(tc.data), 1<<20, 1000, false); err != nil {
			t.Fatal(err)
		}
		_, err := io.ReadAll(d)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestIOTestReader runs the standard reader checks over a decoded entry.
func TestIOTestReader(t *testing.T) {
	ents, err := parseRAR5(testdata(t, "text-m3.rar"))
	if err != nil {
		t.Fatal(err)
	}
	e := ents[0]
	d := NewDecoder()
	defer d.Close()
	d.Reset(bytes.NewReader(e.packed), e.dict, e.size, false)
	want, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	d.Reset(bytes.NewReader(e.packed), e.dict, e.size, false)
	if err := iotest.TestReader(d, want); err != nil {
		t.Fatal(err)
	}
}
