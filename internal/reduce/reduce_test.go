package reduce

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func randomData(n int, seed uint64) []byte { return testutil.RandomBytes(n, seed) }

func textish(n int, seed uint64) []byte {
	return testutil.Words(n, seed, []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog\n", "\x90\x90", "aaaaaaaaaaaaaaaaaaaaaaa"}, 0)
}

func samples() map[string][]byte {
	return map[string][]byte{
		"empty":  {},
		"one":    {'x'},
		"dle":    bytes.Repeat([]byte{dle}, 700),
		"run":    bytes.Repeat([]byte{'a'}, 5000),
		"random": randomData(50_000, 1),
		"text":   textish(100_000, 2),
		"mixed":  append(textish(20_000, 3), randomData(20_000, 4)...),
	}
}

func decode(comp []byte, size int64, factor int) ([]byte, error) {
	z := NewReader(bytes.NewReader(comp), size, factor)
	defer z.Close()
	return io.ReadAll(z)
}

func TestRoundTrip(t *testing.T) {
	for name, data := range samples() {
		for factor := 1; factor <= 4; factor++ {
			for _, maxN := range []int{0, 1, 2, 5, 32, 63} {
				comp := reduceData(data, factor, maxN)
				got, err := decode(comp, int64(len(data)), factor)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s/factor %d/sets of %d: %v, equal %v", name, factor, maxN, err, bytes.Equal(got, data))
				}
			}
		}
	}
}

// TestLongMatch checks each factor's length field and its escape byte.
func TestLongMatch(t *testing.T) {
	data := append([]byte("0123456789"), bytes.Repeat([]byte("0123456789"), 100)...)
	for factor := 1; factor <= 4; factor++ {
		run := runLayer(data, factor)
		if len(run) > 10+4*(len(data)/(0xFF>>factor+258)+2) {
			t.Errorf("factor %d: %d run bytes for %d repetitive bytes; matches are not being used", factor, len(run), len(data))
		}
		comp := reduceData(data, factor, 32)
		if got, err := decode(comp, int64(len(data)), factor); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("factor %d: %v", factor, err)
		}
	}
}

// TestBeforeStart: a match reaching before the first byte reads zeros.
// Factor 4: V = 0x3F has the length field 0xF (the escape), so the next
// byte (0xFF) adds to it, 15+255+3 = 273, and the byte after is the low
// distance byte: (0x3F>>4)<<8 + 0 + 1 = 769 back, before the start.
func TestBeforeStart(t *testing.T) {
	var w bitWriter
	for range 256 {
		w.Put(0, 6) // empty follower sets: every byte is 8 plain bits
	}
	for _, c := range []byte{'x', dle, 0x3F, 0xFF, 0x00} {
		w.Put(uint32(c), 8)
	}
	got, err := decode(w.Flush(), 1+273, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte{'x'}, make([]byte, 273)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestReaders(t *testing.T) {
	data := textish(60_000, 5)
	comp := reduceData(data, 3, 32)
	for name, r := range map[string]io.Reader{
		"onebyte": iotest.OneByteReader(bytes.NewReader(comp)),
		"dataerr": iotest.DataErrReader(bytes.NewReader(comp)),
	} {
		z := NewReader(r, int64(len(data)), 3)
		got, err := io.ReadAll(iotest.OneByteReader(z))
		z.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	z := NewReader(bytes.NewReader(comp), int64(len(data)), 3)
	var buf bytes.Buffer
	if _, err := z.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("WriteTo: %v", err)
	}
	z.Close()
	// A short size stops inside a match.
	for _, n := range []int{0, 1, 5000, 59_999} {
		got, err := decode(comp, int64(n), 3)
		if err != nil || !bytes.Equal(got, data[:n]) {
			t.Fatalf("size %d: %v", n, err)
		}
	}
}

func TestErrors(t *testing.T) {
	data := textish(20_000, 6)
	comp := reduceData(data, 2, 32)
	for _, cut := range []int{0, 1, 100, len(comp) / 2, len(comp) - 2} {
		if _, err := decode(comp[:cut], int64(len(data)), 2); !errors.Is(err, errs.ErrTruncated) {
			t.Fatalf("cut at %d: %v, want ErrTruncated", cut, err)
		}
	}
	// A follower index beyond its set: set 0 has 3 members (2 bits).
	var w bitWriter
	for j := 255; j >= 0; j-- {
		if j == 0 {
			w.Put(3, 6)
			w.Put('a', 8)
			w.Put('b', 8)
			w.Put('c', 8)
		} else {
			w.Put(0, 6)
		}
	}
	w.Put(0, 1)
	w.Put(3, 2)
	if _, err := decode(w.Flush(), 10, 1); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("index 3 of 3: %v, want ErrCorrupt", err)
	}
	for _, f := range []int{0, 5} {
		if _, err := decode(comp, 10, f); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("factor %d: %v", f, err)
		}
	}
	z := NewReader(bytes.NewReader(comp), 10, 2)
	z.Close()
	if _, err := z.Read(make([]byte, 4)); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("read after Close: %v", err)
	}
}

func TestAllocs(t *testing.T) {
	data := textish(100_000, 7)
	comp := reduceData(data, 4, 32)
	z := NewReader(bytes.NewReader(comp), int64(len(data)), 4)
	z.Close()
	testutil.ZeroAllocs(t, "Reset+decode+Close", testutil.ReusedDecode(t, comp, int64(len(data)), func(r io.Reader) io.ReadCloser {
		z.Reset(r, int64(len(data)), 4)
		return z
	}))
}

func BenchmarkDecode(b *testing.B) {
	data := textish(1<<20, 8)
	comp := reduceData(data, 4, 32)
	z := NewReader(bytes.NewReader(comp), int64(len(data)), 4)
	testutil.BenchDecode(b, int64(len(data)), testutil.ReusedDecode(b, comp, int64(len(data)), func(r io.Reader) io.ReadCloser {
		z.Reset(r, int64(len(data)), 4)
		return z
	}))
}

// legacyVariants describes factors 1 to 4 (follower sets of 32) to the
// shared legacy-codec tests, each entry named as GenZip names it.
func legacyVariants() []testutil.LegacyVariant {
	var vs []testutil.LegacyVariant
	for factor := 1; factor <= 4; factor++ {
		vs = append(vs, testutil.LegacyVariant{
			Name: fmt.Sprintf("reduce%d.txt", factor), Method: uint16(1 + factor),
			Encode: func(data []byte) []byte { return reduceData(data, factor, 32) },
			Decode: func(comp []byte, size int64) ([]byte, error) { return decode(comp, size, factor) },
		})
	}
	return vs
}
