package bzip2

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzMaxOut caps the output read per input (one block can expand to
// 46 MB through RLE1).
const fuzzMaxOut = 4 << 20

func fuzzSeeds(f testutil.F) {
	for _, name := range testutil.Glob(f, filepath.Join("testdata", "*.bz2")) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(testEncode(randText(3000, 1), encOpts{level: 1, blockRaw: 700}))
	f.Add(testEncode(randText(2000, 2), encOpts{randomise: true, blockRaw: 900}))
	f.Add(testEncode(bytes.Repeat([]byte{0, 0, 0, 0, 0, 1}, 500), encOpts{level: 2, blockRaw: 1000}))
}

// readCapped reads at most fuzzMaxOut bytes of r; capped says the output
// went on beyond.
func readCapped(r io.Reader) (out []byte, capped bool, err error) {
	var w bytes.Buffer
	n, err := io.Copy(&w, io.LimitReader(r, fuzzMaxOut+1))
	if n > fuzzMaxOut {
		return w.Bytes()[:fuzzMaxOut], true, nil
	}
	return w.Bytes(), false, err
}

func checkClass(t testutil.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	s := oneSentinel(t, err)
	switch s {
	case errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum:
	default:
		t.Fatalf("unexpected error class: %v", err)
	}
}

// FuzzBZip2 decodes mutated streams (Read on a reused reader, and a
// fresh reader's WriteTo): errors are bad-input classes only, both paths
// agree, and where compress/bzip2 also succeeds the bytes are the same.
func FuzzBZip2(f *testing.F) {
	fuzzSeeds(f)
	z := new(Reader)
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 96<<20)()
		if err := z.Reset(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		out1, capped1, err1 := readCapped(struct{ io.Reader }{z})
		checkClass(t, err1)
		z2, err := NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer z2.Close()
		var w2 bytes.Buffer
		_, err2 := z2.WriteTo(&capWriter{w: &w2, n: fuzzMaxOut})
		capped2 := errors.Is(err2, errCap)
		if !capped2 {
			checkClass(t, err2)
		}
		if capped1 || capped2 {
			n := min(len(out1), w2.Len())
			if !bytes.Equal(out1[:n], w2.Bytes()[:n]) {
				t.Fatal("Read and WriteTo differ")
			}
			return
		}
		if (err1 == nil) != (err2 == nil) || !bytes.Equal(out1, w2.Bytes()) {
			t.Fatalf("Read: %d bytes, %v; WriteTo: %d bytes, %v", len(out1), err1, w2.Len(), err2)
		}
		if err1 != nil {
			return
		}
		std, scapped, serr := readCapped(stdbzip2.NewReader(bytes.NewReader(b)))
		if serr == nil && !scapped && !bytes.Equal(std, out1) {
			t.Fatalf("compress/bzip2 gives %d bytes, we give %d", len(std), len(out1))
		}
	})
}

// FuzzBZip2Parallel decodes mutated streams with 4 workers of its own,
// with 3 workers on shared tokens that come and go, and sequentially:
// the same bytes and the same error, and every token given back.
func FuzzBZip2Parallel(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 200<<20)()
		seq, err := NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer seq.Close()
		out1, capped1, err1 := readCapped(seq)
		checkClass(t, err1)
		tok := &flakyTokens{countTokens: countTokens{t: t, cap: 2}}
		for _, opts := range [][]Option{{Workers(4)}, {Workers(3), Shared(tok)}} {
			par, err := NewReader(bytes.NewReader(b), opts...)
			if err != nil {
				t.Fatal(err)
			}
			out2, capped2, err2 := readCapped(par)
			par.Close()
			checkClass(t, err2)
			if capped1 != capped2 || !bytes.Equal(out1, out2) {
				t.Fatalf("sequential %d bytes (capped %v), parallel %d (capped %v)", len(out1), capped1, len(out2), capped2)
			}
			if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
				t.Fatalf("sequential: %v; parallel: %v", err1, err2)
			}
		}
		if n := tok.out.Load(); n != 0 {
			t.Fatalf("%d tokens not given back", n)
		}
	})
}

var errCap = errors.New("output cap")

type capWriter struct {
	w *bytes.Buffer
	n int
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.w.Len()+len(p) > c.n {
		c.w.Write(p[:c.n-c.w.Len()])
		return 0, errCap
	}
	return c.w.Write(p)
}
