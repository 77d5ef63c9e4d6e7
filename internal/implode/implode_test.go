package implode

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
	return testutil.Words(n, seed, []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog\n", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, 500)
}

func samples() map[string][]byte {
	return map[string][]byte{
		"empty":  {},
		"one":    {'x'},
		"run":    bytes.Repeat([]byte{'a'}, 5000),
		"random": randomData(50_000, 1),
		"text":   textish(200_000, 2),
		"mixed":  append(textish(30_000, 3), randomData(30_000, 4)...),
	}
}

func decode(comp []byte, size int64, big, lit bool) ([]byte, error) {
	z := NewReader(bytes.NewReader(comp), size, big, lit)
	defer z.Close()
	return io.ReadAll(z)
}

var variants = []struct{ big, lit bool }{{false, false}, {false, true}, {true, false}, {true, true}}

func TestRoundTrip(t *testing.T) {
	for name, data := range samples() {
		for _, v := range variants {
			comp := implodeData(data, v.big, v.lit)
			got, err := decode(comp, int64(len(data)), v.big, v.lit)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s/8k=%v/lit=%v: %v, equal %v", name, v.big, v.lit, err, bytes.Equal(got, data))
			}
		}
	}
}

// TestWrongVariant: a stream decoded with the other window size or tree
// count must not come out right (the flags matter).
func TestWrongVariant(t *testing.T) {
	data := textish(50_000, 9)
	comp := implodeData(data, true, true)
	for _, v := range variants[:3] {
		got, err := decode(comp, int64(len(data)), v.big, v.lit)
		if err == nil && bytes.Equal(got, data) {
			t.Errorf("8k=%v/lit=%v decodes an 8k three-tree stream", v.big, v.lit)
		}
	}
}

// TestBeforeStart: a match reaching before the first byte reads zeros.
func TestBeforeStart(t *testing.T) {
	var w bitWriter
	flat := make([]uint8, 64)
	for i := range flat {
		flat[i] = 6
	}
	writeTree(&w, flat) // lengths: 64 codes of 6 bits
	writeTree(&w, flat) // distances
	codes := canonical(flat)
	w.Put(1, 1)
	w.Put('x', 8)
	w.Put(0, 1)
	w.Put(0x3F, 6)            // low distance bits
	putCode(&w, codes[1], 6)  // high: distance 1<<6 + 0x3F + 1 = 128
	putCode(&w, codes[10], 6) // length 10 + 2
	got, err := decode(w.Flush(), 13, false, false)
	want := append([]byte{'x'}, make([]byte, 12)...)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%q, %v", got, err)
	}
}

func TestReaders(t *testing.T) {
	data := textish(60_000, 5)
	comp := implodeData(data, true, false)
	for name, r := range map[string]io.Reader{
		"onebyte": iotest.OneByteReader(bytes.NewReader(comp)),
		"dataerr": iotest.DataErrReader(bytes.NewReader(comp)),
	} {
		z := NewReader(r, int64(len(data)), true, false)
		got, err := io.ReadAll(iotest.OneByteReader(z))
		z.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	z := NewReader(bytes.NewReader(comp), int64(len(data)), true, false)
	var buf bytes.Buffer
	if _, err := z.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("WriteTo: %v", err)
	}
	z.Close()
	for _, n := range []int{0, 1, 5000, 59_999} {
		got, err := decode(comp, int64(n), true, false)
		if err != nil || !bytes.Equal(got, data[:n]) {
			t.Fatalf("size %d: %v", n, err)
		}
	}
}

func TestErrors(t *testing.T) {
	data := textish(20_000, 6)
	comp := implodeData(data, false, true)
	for _, cut := range []int{0, 1, 50, len(comp) / 2, len(comp) - 2} {
		if _, err := decode(comp[:cut], int64(len(data)), false, true); !errors.Is(err, errs.ErrTruncated) || errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("cut at %d: %v, want ErrTruncated", cut, err)
		}
	}
	tree := func(runs ...byte) []byte {
		var w bitWriter
		w.Put(uint32(len(runs)-1), 8)
		for _, r := range runs {
			w.Put(uint32(r), 8)
		}
		return w.Flush()
	}
	for name, c := range map[string][]byte{
		// 64 codes of 1 bit.
		"oversubscribed": tree(0xF0, 0xF0, 0xF0, 0xF0),
		"too few codes":  tree(0xF5, 0xF5, 0xF5),
		"too many codes": tree(0xF5, 0xF5, 0xF5, 0xF5, 0x05),
		// Lengths: 64 codes of 16 bits, valid but incomplete (canonical
		// codes 0-63); then a match whose length bits are all zeros in
		// the stream, the inverted code 0xFFFF, which no symbol has.
		"unused code": append(append(tree(0xFF, 0xFF, 0xFF, 0xFF), tree(0xF5, 0xF5, 0xF5, 0xF5)...), 0x00, 0x00, 0x00, 0x00),
	} {
		if _, err := decode(c, 100, false, false); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	z := NewReader(bytes.NewReader(comp), 10, false, true)
	z.Close()
	if _, err := z.Read(make([]byte, 4)); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("read after Close: %v", err)
	}
}

func TestAllocs(t *testing.T) {
	data := textish(100_000, 7)
	comp := implodeData(data, true, true)
	z := NewReader(bytes.NewReader(comp), int64(len(data)), true, true)
	z.Close()
	testutil.ZeroAllocs(t, "Reset+decode+Close", testutil.ReusedDecode(t, comp, int64(len(data)), func(r io.Reader) io.ReadCloser {
		z.Reset(r, int64(len(data)), true, true)
		return z
	}))
}

func BenchmarkDecode(b *testing.B) {
	data := textish(1<<20, 8)
	for _, v := range variants {
		comp := implodeData(data, v.big, v.lit)
		b.Run(fmt.Sprintf("8k=%v/lit=%v", v.big, v.lit), func(b *testing.B) {
			z := NewReader(bytes.NewReader(comp), int64(len(data)), v.big, v.lit)
			testutil.BenchDecode(b, int64(len(data)), testutil.ReusedDecode(b, comp, int64(len(data)), func(r io.Reader) io.ReadCloser {
				z.Reset(r, int64(len(data)), v.big, v.lit)
				return z
			}))
		})
	}
}

// legacyVariants describes the variants to the shared legacy-codec
// tests, each entry named as GenZip names it.
func legacyVariants() []testutil.LegacyVariant {
	var vs []testutil.LegacyVariant
	for _, v := range variants {
		var flags uint16
		if v.big {
			flags |= 2
		}
		if v.lit {
			flags |= 4
		}
		vs = append(vs, testutil.LegacyVariant{
			Name: fmt.Sprintf("implode-flags%d.txt", flags), Method: 6, Flags: flags,
			Encode: func(data []byte) []byte { return implodeData(data, v.big, v.lit) },
			Decode: func(comp []byte, size int64) ([]byte, error) { return decode(comp, size, v.big, v.lit) },
		})
	}
	return vs
}
