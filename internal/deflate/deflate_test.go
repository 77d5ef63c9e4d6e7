package deflate

import (
	"bufio"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// Test inputs, all deterministic.

func randomData(n int, seed uint64) []byte { return testutil.RandomBytes(n, seed) }

func textData(n int) []byte {
	var b bytes.Buffer
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "archive", "deflate", "window", "match"}
	for b.Len() < n {
		fmt.Fprintf(&b, "%s %d ", words[r.IntN(len(words))], r.IntN(1000))
		if r.IntN(8) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()[:n]
}

func repetitiveData(n int) []byte {
	b := make([]byte, 0, n)
	for i := 0; len(b) < n; i++ {
		// Runs of one byte (distance 1), short periods (2..7) and long runs.
		switch i % 4 {
		case 0:
			b = append(b, bytes.Repeat([]byte{byte(i)}, 1+i%700)...)
		case 1:
			b = append(b, bytes.Repeat([]byte("abcdefg"[:2+i%6]), 1+i%300)...)
		case 2:
			b = append(b, bytes.Repeat([]byte("0123456789"), 30)...)
		default:
			b = append(b, byte(i>>3), byte(i>>5))
		}
	}
	return b[:n]
}

func mixedData(n int) []byte {
	var b []byte
	for i := 0; len(b) < n; i++ {
		switch i % 3 {
		case 0:
			b = append(b, randomData(5000+i*37, uint64(i))...)
		case 1:
			b = append(b, textData(20000+i*11)...)
		default:
			b = append(b, repetitiveData(9000)...)
		}
	}
	return b[:n]
}

type namedData struct {
	name string
	data []byte
}

func inputs() []namedData {
	return []namedData{
		{"empty", nil},
		{"one", []byte("x")},
		{"small", []byte("hello, hello, hello world")},
		{"random", randomData(300_000, 1)},
		{"text", textData(400_000)},
		{"repetitive", repetitiveData(300_000)},
		{"zeros", make([]byte, 1<<20)}, // huge matches at distance 1
		{"mixed", mixedData(700_000)},
	}
}

var levels = []int{flate.HuffmanOnly, flate.NoCompression, flate.BestSpeed, 2, 3, 4, 5, 6, 7, 8, flate.BestCompression}

func compress(tb testutil.TB, data []byte, level int) []byte {
	tb.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// byteReader hides everything but Read and ReadByte (exact mode).
type byteReader struct{ r *bytes.Reader }

func (b *byteReader) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *byteReader) ReadByte() (byte, error)    { return b.r.ReadByte() }

// source builds one kind of input for a stream followed by trailer, and
// returns a function telling what the source holds after the stream.
type source struct {
	name string
	make func(stream []byte) (io.Reader, func(z *Reader) []byte)
}

var sources = []source{
	{"bytes.Reader", func(s []byte) (io.Reader, func(*Reader) []byte) {
		r := bytes.NewReader(s)
		return r, func(*Reader) []byte { b, _ := io.ReadAll(r); return b }
	}},
	{"bufio", func(s []byte) (io.Reader, func(*Reader) []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(s), 16)
		return r, func(*Reader) []byte { b, _ := io.ReadAll(r); return b }
	}},
	{"bufio4k", func(s []byte) (io.Reader, func(*Reader) []byte) {
		r := bufio.NewReader(bytes.NewReader(s))
		return r, func(*Reader) []byte { b, _ := io.ReadAll(r); return b }
	}},
	{"ByteReader", func(s []byte) (io.Reader, func(*Reader) []byte) {
		r := &byteReader{bytes.NewReader(s)}
		return r, func(*Reader) []byte { b, _ := io.ReadAll(r); return b }
	}},
	{"OneByteReader", func(s []byte) (io.Reader, func(*Reader) []byte) {
		r := iotest.OneByteReader(bytes.NewReader(s))
		return r, func(z *Reader) []byte {
			b, _ := io.ReadAll(r)
			return append(bytes.Clone(z.Buffered()), b...)
		}
	}},
	{"HalfReader", func(s []byte) (io.Reader, func(*Reader) []byte) {
		r := iotest.HalfReader(bytes.NewReader(s))
		return r, func(z *Reader) []byte {
			b, _ := io.ReadAll(r)
			return append(bytes.Clone(z.Buffered()), b...)
		}
	}},
}

var trailer = []byte("TRAILER: the bytes after the stream")

// TestDifferential decodes compress/flate output at every level from every
// kind of source, through Read and through WriteTo, and checks the output
// and the source position after the stream.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, in := range inputs() {
		for _, level := range levels {
			stream := compress(t, in.data, level)
			full := append(bytes.Clone(stream), trailer...)
			for _, src := range sources {
				for _, path := range []string{"Read", "WriteTo"} {
					if testing.Short() && src.name != "bytes.Reader" {
						continue
					}
					name := fmt.Sprintf("%s/level%d/%s/%s", in.name, level, src.name, path)
					r, rest := src.make(full)
					z := NewReader(r)
					var out bytes.Buffer
					var err error
					if path == "Read" {
						_, err = io.CopyBuffer(struct{ io.Writer }{&out}, struct{ io.Reader }{z}, make([]byte, 1000))
					} else {
						_, err = z.WriteTo(&out)
					}
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !bytes.Equal(out.Bytes(), in.data) {
						t.Fatalf("%s: output differs (got %d bytes, want %d)", name, out.Len(), len(in.data))
					}
					if got := rest(z); !bytes.Equal(got, trailer) {
						t.Fatalf("%s: after the stream the source holds %q, want %q", name, got, trailer)
					}
					z.Close()
				}
			}
		}
	}
}

// TestTruncated checks that every proper prefix of valid streams fails with
// a truncation error (io.ErrUnexpectedEOF), never corruption or success.
func TestTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, in := range []namedData{
		{"small", []byte("hello, hello, hello world")},
		{"text", textData(3000)},
		{"mixed", mixedData(6000)},
	} {
		for _, level := range []int{0, 1, 6, 9, flate.HuffmanOnly} {
			stream := compress(t, in.data, level)
			z := NewReader(nil)
			for n := range len(stream) {
				for i, src := range sources {
					// Every prefix through the buffered and the exact
					// reader; the other sources sample the prefixes.
					if i != 0 && i != 3 && n%7 != 0 {
						continue
					}
					r, _ := src.make(stream[:n])
					z.Reset(r, false)
					_, err := io.Copy(io.Discard, z)
					if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, errs.ErrTruncated) {
						t.Fatalf("%s level %d prefix %d/%d via %s: err = %v, want truncation", in.name, level, n, len(stream), src.name, err)
					}
				}
			}
		}
	}
}

func isTruncated(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) && errors.Is(err, errs.ErrTruncated)
}

func isCorrupt(err error) bool { return errors.Is(err, errs.ErrCorrupt) }

// TestAllocs checks that Reset, decoding and Close allocate nothing once
// the pools are warm, for each kind of source.
func TestAllocs(t *testing.T) {
	if testing.CoverMode() != "" || testutil.RaceEnabled {
		t.Skip("allocation counts differ under -cover/-race")
	}
	data := mixedData(300_000)
	stream := compress(t, data, 6)
	d64 := readZip(t, "d64-7zz-mx9.zip")[1].raw
	br := bytes.NewReader(stream)
	bf := bufio.NewReader(br)
	by := &byteReader{br}
	for _, c := range []struct {
		name string
		r    io.Reader
		raw  []byte
		d64  bool
	}{{"bytes.Reader", br, stream, false}, {"bufio", bf, stream, false}, {"ByteReader", by, stream, false}, {"d64", br, d64, true}} {
		z := NewReader(nil)
		run := func() {
			br.Reset(c.raw)
			bf.Reset(br)
			z.Reset(c.r, c.d64)
			if _, err := io.Copy(io.Discard, z); err != nil {
				t.Fatal(err)
			}
			z.Close()
		}
		run()
		if n := testing.AllocsPerRun(5, run); n != 0 {
			t.Errorf("%s: %v allocations per Reset+decode+Close", c.name, n)
		}
	}
}
