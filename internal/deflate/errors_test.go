package deflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestErrors decodes hand-built streams (RFC 1951 section 3.2) that break
// one rule each, as Deflate and as Deflate64.
func TestErrors(t *testing.T) {
	fixed := func(f func(w *bitWriter)) []byte {
		var w bitWriter
		w.bits(1, 1)
		w.bits(1, 2)
		f(&w)
		return w.bytes()
	}
	// dynamic writes a dynamic block header with the given HLIT, HDIST and
	// code length code lengths, then f.
	dynamic := func(hlit, hdist int, clens []int, f func(w *bitWriter)) []byte {
		var w bitWriter
		w.bits(1, 1)
		w.bits(2, 2)
		w.bits(uint64(hlit-257), 5)
		w.bits(uint64(hdist-1), 5)
		w.bits(uint64(len(clens)-4), 4)
		for _, l := range clens {
			w.bits(uint64(l), 3)
		}
		f(&w)
		return w.bytes()
	}
	none := func(*bitWriter) {}
	tests := []struct {
		name         string
		stream       []byte
		want, want64 string // "ok", "corrupt", "truncated"
	}{
		{"empty input", nil, "truncated", "truncated"},
		{"reserved block type", []byte{0x07}, "corrupt", "corrupt"},
		{"stored NLEN mismatch", []byte{0x01, 0x05, 0x00, 0xfa, 0xfe, 'h', 'e', 'l', 'l', 'o'}, "corrupt", "corrupt"},
		{"stored ok", []byte{0x01, 0x05, 0x00, 0xfa, 0xff, 'h', 'e', 'l', 'l', 'o'}, "ok", "ok"},
		{"stored short", []byte{0x01, 0x05, 0x00, 0xfa, 0xff, 'h', 'e'}, "truncated", "truncated"},
		{"distance before start", fixed(func(w *bitWriter) {
			w.fixedLit('a')
			w.fixedLit(257) // length 3
			w.code(1, 5)    // distance 2
			w.fixedLit(256)
		}), "corrupt", "corrupt"},
		{"literal 286", fixed(func(w *bitWriter) { w.fixedLit(286) }), "corrupt", "corrupt"},
		{"distance code 30", fixed(func(w *bitWriter) {
			w.fixedLit('a')
			w.fixedLit(257)
			w.code(30, 5)
			w.bits(0, 14)
			w.fixedLit(256)
		}), "corrupt", "corrupt"}, // Deflate64: 32769 is before the start
		{"no end of block", fixed(func(w *bitWriter) { w.fixedLit('a') }), "truncated", "truncated"},
		{"HLIT 287", dynamic(287, 1, []int{0, 0, 0, 1, 1}, none), "corrupt", "corrupt"},
		{"HDIST 32", dynamic(257, 32, []int{0, 0, 0, 1, 1}, none), "corrupt", "truncated"},
		{"over-subscribed code length code", dynamic(257, 1, []int{1, 1, 1, 1}, none), "corrupt", "corrupt"},
		{"incomplete code length code", dynamic(257, 1, []int{0, 0, 0, 2, 2}, none), "corrupt", "corrupt"},
		{"repeat without previous", dynamic(257, 1, []int{1, 0, 0, 1}, func(w *bitWriter) {
			w.code(1, 1) // symbol 16: codes 0 (symbol 0) and 1 (symbol 16)
			w.bits(0, 2)
		}), "corrupt", "corrupt"},
		{"repeat past the end", dynamic(257, 1, []int{0, 0, 1, 1}, func(w *bitWriter) {
			for range 3 {
				w.code(1, 1) // symbol 18 (codes as above): 11+127 zeros
				w.bits(127, 7)
			}
		}), "corrupt", "corrupt"},
	}
	for _, tc := range tests {
		// compress/flate must agree on the Deflate column.
		_, err := io.Copy(io.Discard, flate.NewReader(bytes.NewReader(tc.stream)))
		std := "ok"
		if err == io.ErrUnexpectedEOF {
			std = "truncated"
		} else if err != nil {
			std = "corrupt"
		}
		if std != tc.want {
			t.Errorf("%s: compress/flate says %s (%v), test wants %s", tc.name, std, err, tc.want)
		}
		for _, d64 := range []bool{false, true} {
			want := tc.want
			if d64 {
				want = tc.want64
			}
			z := NewReader(nil)
			z.Reset(bytes.NewReader(tc.stream), d64)
			_, err := io.Copy(io.Discard, z)
			got := "ok"
			switch {
			case isTruncated(err):
				got = "truncated"
			case isCorrupt(err):
				got = "corrupt"
			case err != nil:
				got = err.Error()
			}
			if got != want {
				t.Errorf("%s (d64=%v): got %s (%v), want %s", tc.name, d64, got, err, want)
			}
		}
	}
}

// TestLifecycle covers Close, Reset after Close, a nil source, a failing
// source and Buffered for a plain reader.
func TestLifecycle(t *testing.T) {
	data := textData(50_000)
	stream := compress(t, data, 6)

	z := NewReader(bytes.NewReader(stream))
	z.Close()
	if _, err := z.Read(make([]byte, 10)); err == nil {
		t.Error("Read after Close succeeded")
	}
	z.Reset(bytes.NewReader(stream), false)
	if got, err := io.ReadAll(z); err != nil || !bytes.Equal(got, data) {
		t.Errorf("Reset after Close: %v", err)
	}

	z.Reset(nil, false)
	if _, err := z.Read(make([]byte, 10)); err == nil {
		t.Error("nil source: no error")
	}

	boom := errors.New("boom")
	z.Reset(io.MultiReader(bytes.NewReader(stream[:100]), iotest.ErrReader(boom)), false)
	if _, err := io.ReadAll(z); !errors.Is(err, boom) {
		t.Errorf("failing source: err = %v, want boom", err)
	}

	// A plain reader that cannot seek: what was read past the stream is
	// in Buffered.
	tail := strings.Repeat("after", 100)
	z.Reset(struct{ io.Reader }{io.MultiReader(bytes.NewReader(stream), strings.NewReader(tail))}, false)
	if got, err := io.ReadAll(z); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("plain reader: %v", err)
	}
	if b := string(z.Buffered()); b == "" || !strings.HasPrefix(tail, b) {
		t.Errorf("Buffered = %q, want a prefix of the tail", b)
	}
	z.Close()
}

// TestSizeHint decodes with right, short and missing size hints; a short
// hint must only cost a move to a full buffer.
func TestSizeHint(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	var cases []namedData
	for _, in := range inputs() {
		cases = append(cases, namedData{in.name, compress(t, in.data, 6)})
	}
	want := map[string][]byte{}
	for _, in := range inputs() {
		want[in.name] = in.data
	}
	long := readZip(t, "d64-7zz-mx9.zip")[1]
	for _, c := range append(cases, namedData{"d64", long.raw}) {
		d64 := c.name == "d64"
		w := want[c.name]
		if d64 {
			w = zipInputs()[long.name]
		}
		for _, hint := range []int64{-1, 0, 1, 100, int64(len(w)) / 2, int64(len(w)), int64(len(w)) * 3} {
			z := NewReader(nil)
			z.ResetSize(bytes.NewReader(c.data), d64, hint)
			got, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(got, w) {
				t.Errorf("%s hint %d: err %v, equal %v", c.name, hint, err, bytes.Equal(got, w))
			}
			if hint >= 0 && hint < 4*int64(z.win)-margin && len(w) <= int(hint) && len(z.out) > int(hint)*2+2*margin {
				t.Errorf("%s hint %d: buffer of %d bytes", c.name, hint, len(z.out))
			}
			z.Close()
		}
	}
}
