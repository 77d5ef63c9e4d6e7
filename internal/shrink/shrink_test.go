package shrink

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func randomData(n int, seed uint64) []byte { return testutil.RandomBytes(n, seed) }

// textish is repetitive data with a small alphabet: long strings, many
// KwKwK codes, and a table that fills up (partial clears when full).
func textish(n int, seed uint64) []byte {
	return testutil.Words(n, seed, []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog\n", "aaaaaaaa", "abab"}, 0)
}

func samples() map[string][]byte {
	return map[string][]byte{
		"empty":  {},
		"one":    {'x'},
		"kwkwk":  bytes.Repeat([]byte{'a'}, 1000),
		"random": randomData(100_000, 1),
		"text":   textish(300_000, 2),
		"zeros":  make([]byte, 200_000),
		"mixed":  append(textish(50_000, 3), randomData(50_000, 4)...),
	}
}

func decode(t testutil.TB, comp []byte, size int64) ([]byte, error) {
	t.Helper()
	z := NewReader(bytes.NewReader(comp), size)
	defer z.Close()
	return io.ReadAll(z)
}

func TestRoundTrip(t *testing.T) {
	for name, data := range samples() {
		for _, every := range []int{0, 7, 300, 5000} {
			comp, clears, incs := shrinkData(data, every)
			got, err := decode(t, comp, int64(len(data)))
			if err != nil {
				t.Fatalf("%s/clear %d: %v", name, every, err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("%s/clear %d: output differs (%d bytes, want %d)", name, every, len(got), len(data))
			}
			if name == "text" && every == 0 && (clears == 0 || incs != maxBits-minBits) {
				t.Errorf("text: %d clears and %d size steps; the sample should fill the table", clears, incs)
			}
		}
	}
}

// TestReaders decodes through one-byte and data+EOF sources and WriteTo.
func TestReaders(t *testing.T) {
	data := textish(100_000, 5)
	comp, _, _ := shrinkData(data, 333)
	for name, r := range map[string]io.Reader{
		"onebyte": iotest.OneByteReader(bytes.NewReader(comp)),
		"dataerr": iotest.DataErrReader(bytes.NewReader(comp)),
	} {
		z := NewReader(r, int64(len(data)))
		got, err := io.ReadAll(iotest.OneByteReader(z))
		z.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %v, equal %v", name, err, bytes.Equal(got, data))
		}
	}
	z := NewReader(bytes.NewReader(comp), int64(len(data)))
	var buf bytes.Buffer
	if _, err := z.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("WriteTo: %v", err)
	}
	z.Close()
}

// TestShortSize stops inside a string: the stream ends at the size.
func TestShortSize(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh"), 500)
	comp, _, _ := shrinkData(data, 0)
	for _, n := range []int{0, 1, 9, 100, 3999} {
		got, err := decode(t, comp, int64(n))
		if err != nil || !bytes.Equal(got, data[:n]) {
			t.Fatalf("size %d: %v, %d bytes", n, err, len(got))
		}
	}
}

func TestTruncated(t *testing.T) {
	data := textish(20_000, 6)
	comp, _, _ := shrinkData(data, 100)
	for _, cut := range []int{0, 1, len(comp) / 2, len(comp) - 2} {
		_, err := decode(t, comp[:cut], int64(len(data)))
		if !errors.Is(err, errs.ErrTruncated) || errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("cut at %d: %v, want ErrTruncated", cut, err)
		}
	}
}

func codes(bits uint, cs ...uint32) []byte {
	var w bitWriter
	for _, c := range cs {
		w.Put(c, bits)
	}
	return w.Flush()
}

func TestCorrupt(t *testing.T) {
	for name, comp := range map[string][]byte{
		"first not literal": codes(9, 300),
		"undefined code":    codes(9, 'a', 'b', 400),
		"bad control":       codes(9, 'a', 256, 3),
		"size above 13":     codes(9, 'a', 256, 1, 256, 1, 256, 1, 256, 1, 256, 1),
		// 'a','b' defines 257="ab"; clear frees 257 (a leaf); 257 is then
		// the next free code, and KwKwK on it is fine, but 258 is not.
		"cleared code": codes(9, 'a', 'b', 257, 256, 2, 259),
	} {
		if name == "size above 13" {
			// The sizes go 9,10,11,12,13 and the fifth 256,1 is read at 13 bits.
			var w bitWriter
			w.Put('a', 9)
			for b := uint(9); b <= 13; b++ {
				w.Put(256, b)
				w.Put(1, b)
			}
			comp = w.Flush()
		}
		_, err := decode(t, comp, 1000)
		if !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// TestClearedPrefix: a string defined right after a partial clear freed
// the previous code points at that free code and takes its later value
// (how PKZIP's table behaves, as Info-ZIP and hwzip read it); one that
// points at itself can never be used.
func TestClearedPrefix(t *testing.T) {
	for _, c := range []struct {
		codes []uint32
		want  string // "" means ErrCorrupt
	}{
		// a b c: 257="ab" 258="bc"; 258 -> "bc", 259="cb"; clear frees
		// 257-259; x: 257 = 258+"x" (258 free); y: 258="xy", so 257="xyx".
		{[]uint32{'a', 'b', 'c', 258, 256, 2, 'x', 'y', 257}, "abcbcxyxyx"},
		// a b 257: 257="ab" 258="ba"; clear frees both; c: 257 = 257+"c",
		// a loop; d: 258="cd".
		{[]uint32{'a', 'b', 257, 256, 2, 'c', 'd', 258}, "ababcdcd"},
		{[]uint32{'a', 'b', 257, 256, 2, 'c', 'd', 257}, ""},
		// KwKwK right after a clear on a freed previous code.
		{[]uint32{'a', 'b', 257, 256, 2, 257}, ""},
		// A code freed by the clear and not yet reused.
		{[]uint32{'a', 'b', 'c', 256, 2, 'd', 259}, ""},
	} {
		size := int64(len(c.want)) + 1
		if c.want == "" {
			size = 1000
		}
		got, err := decode(t, codes(9, c.codes...), size)
		if c.want == "" {
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Errorf("%v: %q, %v; want ErrCorrupt", c.codes, got, err)
			}
			continue
		}
		if !errors.Is(err, errs.ErrTruncated) || string(got) != c.want {
			t.Errorf("%v: %q, %v; want %q then the end of input", c.codes, got, err, c.want)
		}
	}
}

func TestAllocs(t *testing.T) {
	data := textish(100_000, 7)
	comp, _, _ := shrinkData(data, 0)
	z := NewReader(bytes.NewReader(comp), int64(len(data)))
	z.Close()
	testutil.ZeroAllocs(t, "Reset+decode+Close", testutil.ReusedDecode(t, comp, int64(len(data)), func(r io.Reader) io.ReadCloser {
		z.Reset(r, int64(len(data)))
		return z
	}))
}

func TestReadAfterClose(t *testing.T) {
	comp, _, _ := shrinkData([]byte("hello hello"), 0)
	z := NewReader(bytes.NewReader(comp), 11)
	z.Close()
	if _, err := z.Read(make([]byte, 4)); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("read after Close: %v", err)
	}
}

func BenchmarkDecode(b *testing.B) {
	data := textish(1<<20, 8)
	comp, _, _ := shrinkData(data, 0)
	z := NewReader(bytes.NewReader(comp), int64(len(data)))
	testutil.BenchDecode(b, int64(len(data)), testutil.ReusedDecode(b, comp, int64(len(data)), func(r io.Reader) io.ReadCloser {
		z.Reset(r, int64(len(data)))
		return z
	}))
}

// clearRate names streams with a partial clear every n codes (0: only
// when the table is full).
type clearRate struct {
	every int
	name  string
}

// legacyVariants describes streams of each clear rate to the shared
// legacy-codec tests.
func legacyVariants(rates ...clearRate) []testutil.LegacyVariant {
	var vs []testutil.LegacyVariant
	for _, c := range rates {
		every := c.every
		vs = append(vs, testutil.LegacyVariant{
			Name: c.name, Method: 1,
			Encode: func(data []byte) []byte { comp, _, _ := shrinkData(data, every); return comp },
			Decode: func(comp []byte, size int64) ([]byte, error) {
				z := NewReader(bytes.NewReader(comp), size)
				defer z.Close()
				return io.ReadAll(z)
			},
		})
	}
	return vs
}

// TestClearFlood: a stream that asks for a partial clear every 18 bits
// costs time in proportion to its length, not 8192 steps per clear.
func TestClearFlood(t *testing.T) {
	var w bitWriter
	w.Put('a', 9)
	for range 500_000 { // about 1.1 MB
		w.Put(256, 9)
		w.Put(2, 9)
	}
	w.Put('b', 9)
	comp := w.Flush()
	start := testutil.CPUTime()
	got, err := decode(t, comp, 2)
	if err != nil || string(got) != "ab" {
		t.Fatalf("%q, %v", got, err)
	}
	// A full table scan per clear took about 50 s here; the bound leaves
	// room for a loaded machine and the race detector's slowdown.
	limit := 10 * time.Second
	if testutil.RaceEnabled {
		limit *= 10
	}
	if d := testutil.CPUSince(start); d > limit {
		t.Errorf("500000 partial clears took %v", d)
	}
}
