package lzma

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// encodeLZMA compresses data with a raw LZMA Writer and returns the
// stream and its properties.
func encodeLZMA(t testing.TB, data []byte, opts ...WriterOption) ([]byte, Props) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.Props()
}

func encodeLZMA2(t testing.TB, data []byte, opts ...WriterOption) ([]byte, byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.DictByte()
}

func decodeLZMA(t testing.TB, packed []byte, p Props, size int64) []byte {
	t.Helper()
	r, err := NewReader(bytes.NewReader(packed), p, size)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

func decodeLZMA2(t testing.TB, packed []byte, dictByte byte, size int64) []byte {
	t.Helper()
	d, err := DictSizeLZMA2(dictByte)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader2(bytes.NewReader(packed), d, size)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed)})
	r.Read(b)
	return b
}

func TestRoundTripBasic(t *testing.T) {
	inputs := map[string][]byte{
		"empty":  nil,
		"one":    {'x'},
		"zeros":  make([]byte, 100000),
		"random": randomBytes(100000, 1),
		"mixed":  genMixed(1, 300000),
	}
	for name, data := range inputs {
		packed, p := encodeLZMA(t, data)
		if got := decodeLZMA(t, packed, p, -1); !bytes.Equal(got, data) {
			t.Errorf("%s: LZMA round trip differs", name)
		}
		packed2, db := encodeLZMA2(t, data)
		if got := decodeLZMA2(t, packed2, db, -1); !bytes.Equal(got, data) {
			t.Errorf("%s: LZMA2 round trip differs", name)
		}
		t.Logf("%s: %d -> lzma %d, lzma2 %d", name, len(data), len(packed), len(packed2))
	}
}
