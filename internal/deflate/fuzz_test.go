package deflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzCap bounds the output compared per input; Deflate64 can expand a few
// bits into 64 KiB.
const fuzzCap = 8 << 20

func addSeeds(f testutil.F, d64 bool) {
	for _, in := range []namedData{
		{"small", []byte("hello, hello, hello world")},
		{"text", textData(2000)},
		{"rep", repetitiveData(3000)},
		{"mixed", mixedData(4000)},
	} {
		for _, level := range []int{0, 1, 5, 9, flate.HuffmanOnly} {
			f.Add(compress(f, in.data, level))
		}
	}
	for _, zname := range testZips {
		for _, e := range readZip(f, zname) {
			if (e.method == 9) == d64 && len(e.raw) < 50000 {
				f.Add(e.raw)
			}
		}
	}
}

// decodeCapped decodes data with WriteTo (readFn false) or small Reads
// (readFn true) from an exact-mode or buffered source, up to fuzzCap bytes,
// with a size hint (-1 for none).
func decodeCapped(data []byte, d64, readFn bool, hint int64) ([]byte, error) {
	var r io.Reader = bytes.NewReader(data)
	if readFn {
		r = &byteReader{bytes.NewReader(data)}
	}
	z := NewReader(nil)
	z.ResetSize(r, d64, hint)
	defer z.Close()
	var out bytes.Buffer
	var err error
	if readFn {
		buf := make([]byte, 1000)
		for out.Len() < fuzzCap {
			var n int
			n, err = z.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if err == io.EOF {
			err = nil
		}
	} else {
		_, err = z.WriteTo(&capWriter{&out})
		if err == errCapped {
			err = nil
		}
	}
	if out.Len() >= fuzzCap {
		return out.Bytes()[:fuzzCap], nil
	}
	return out.Bytes(), err
}

var errCapped = errors.New("output cap reached")

type capWriter struct{ b *bytes.Buffer }

func (w *capWriter) Write(p []byte) (int, error) {
	w.b.Write(p)
	if w.b.Len() >= fuzzCap {
		return len(p), errCapped
	}
	return len(p), nil
}

// errClass names the error kind, so two decoders can be compared.
func errClass(err error) string {
	switch {
	case err == nil:
		return "ok"
	case isTruncated(err):
		return "truncated"
	case isCorrupt(err):
		return "corrupt"
	}
	return "other: " + err.Error()
}

// FuzzDecode checks our Deflate decoder against compress/flate: the same
// output, or both fail the same way, on both of our decode paths.
func FuzzDecode(f *testing.F) {
	addSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 128<<20)()
		want, werr := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), fuzzCap))
		wantClass := "ok"
		if werr == io.ErrUnexpectedEOF {
			wantClass = "truncated"
		} else if _, ok := werr.(flate.CorruptInputError); ok {
			wantClass = "corrupt"
		} else if werr != nil {
			t.Fatalf("compress/flate: %v", werr)
		}
		for _, readFn := range []bool{false, true} {
			hint := int64(-1)
			if readFn {
				hint = int64(len(data)) // usually too small: exercises growing
			}
			got, err := decodeCapped(data, false, readFn, hint)
			c := errClass(err)
			// compress/flate reads as many bits as the end-of-block code
			// has before it decodes any literal/length code (readHuffman
			// raises the code's min to it, so it never reads past a
			// stream's end). When the input ends fewer bits than that after
			// a complete code that already makes the stream invalid (a
			// match whose distance code is empty or whose distance bits
			// match no code or lie before the start, all within the
			// input), it reports
			// io.ErrUnexpectedEOF where we report the corruption. Such a
			// disagreement is settled by refClass, which reads only the
			// bits each code needs (testdata 344f1fb6f29a3ee9).
			if c == "corrupt" && wantClass == "truncated" && refClass(data) == "corrupt" {
				c = wantClass
			}
			if c != wantClass && len(want) < fuzzCap {
				t.Fatalf("readFn=%v: error %v (%s), compress/flate %v (%s)", readFn, err, c, werr, wantClass)
			}
			if wantClass == "ok" && !bytes.Equal(got, want) {
				t.Fatalf("readFn=%v: output differs from compress/flate (%d vs %d bytes)", readFn, len(got), len(want))
			}
		}
	})
}

// FuzzDecode64 checks that Deflate64 decoding never panics or hangs and
// that the WriteTo and Read paths (buffered and exact sources) and a
// decoder given a (mostly wrong) size hint agree.
func FuzzDecode64(f *testing.F) {
	addSeeds(f, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 128<<20)()
		a, aerr := decodeCapped(data, true, false, -1)
		b, berr := decodeCapped(data, true, true, -1)
		if errClass(aerr) != errClass(berr) || !bytes.Equal(a, b) {
			t.Fatalf("WriteTo: %d bytes, %v; Read: %d bytes, %v", len(a), aerr, len(b), berr)
		}
		c, cerr := decodeCapped(data, true, false, int64(len(data)))
		if errClass(aerr) != errClass(cerr) || !bytes.Equal(a, c) {
			t.Fatalf("WriteTo: %d bytes, %v; with size hint: %d bytes, %v", len(a), aerr, len(c), cerr)
		}
	})
}
