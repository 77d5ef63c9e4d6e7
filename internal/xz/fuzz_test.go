package xz

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzMaxOut caps the output read per input.
const fuzzMaxOut = 1 << 20

// FuzzXZ feeds mutated .xz files to the reader, through WriteTo and through
// Read on a reused reader, under a 16 MiB memory limit. Every failure must
// be one of the bad-input classes, the two paths must agree, and a stream
// that decodes must decode the same again after Reset.
func FuzzXZ(f *testing.F) {
	for _, name := range testutil.Glob(f, filepath.Join(testdir, "*.xz")) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	z := new(Reader)
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		var w1 bytes.Buffer
		if err := z.Reset(bytes.NewReader(b), MaxMemory(16<<20)); err != nil {
			t.Fatal(err)
		}
		_, err1 := io.Copy(&w1, io.LimitReader(struct{ io.Reader }{z}, fuzzMaxOut))
		z2, err := NewReader(bytes.NewReader(b), MaxMemory(16<<20))
		if err != nil {
			t.Fatal(err)
		}
		defer z2.Close()
		var w2 bytes.Buffer
		_, err2 := z2.WriteTo(&testutil.LimitWriter{W: &w2, N: fuzzMaxOut})
		if errors.Is(err2, testutil.ErrLimitWriter) {
			return // long output: compare what both produced
		}
		checkClass(t, err1)
		checkClass(t, err2)
		if w1.Len() < fuzzMaxOut && (err1 == nil) != (err2 == nil) {
			t.Fatalf("Read: %v, WriteTo: %v", err1, err2)
		}
		if err1 == nil && err2 == nil && !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("Read gave %d bytes, WriteTo %d", w1.Len(), w2.Len())
		}
	})
}

func checkClass(t testutil.TB, err error) {
	t.Helper()
	testutil.FuzzErr(t, "decode", err, testutil.Classes(errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum, errs.ErrUnsupported, errs.ErrLimit))
}
