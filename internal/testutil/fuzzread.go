package testutil

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/arc"
)

// Shared by the fuzz targets that read whole archives: every error is
// one bad input may give (ok says which), and what reads without one
// has the size its entry declares.

// FuzzErr fails t when err is not nil and not one ok accepts.
func FuzzErr(t TB, what string, err error, ok func(error) bool) {
	t.Helper()
	if err != nil && !ok(err) {
		t.Fatalf("%s: unclassified error %v", what, err)
	}
}

// FuzzRead reads r, an entry of declared size (-1: unknown), up to
// readCap bytes: an error must be one ok accepts, and a read that ends
// without one below the cap must give size bytes. It returns how many
// bytes it read.
func FuzzRead(t TB, what string, r io.Reader, size, readCap int64, ok func(error) bool) int64 {
	t.Helper()
	n, err := io.Copy(io.Discard, io.LimitReader(r, readCap))
	FuzzErr(t, what, err, ok)
	if err == nil && n < readCap && size >= 0 && n != size {
		t.Fatalf("%s read %d bytes without error, Size %d", what, n, size)
	}
	return n
}

// FuzzEntries opens each of entries through open and reads it with
// FuzzRead, until budget bytes have been read (entries may share one
// bomb's data); an entry's Index must be its position.
func FuzzEntries(t TB, entries []*arc.Entry, open func(i int) (io.ReadCloser, error), budget, readCap int64, ok func(error) bool) {
	t.Helper()
	for i, e := range entries {
		if budget <= 0 {
			return
		}
		if e.Index != i {
			t.Fatalf("entry %d has Index %d", i, e.Index)
		}
		rc, err := open(i)
		if err != nil {
			FuzzErr(t, fmt.Sprintf("Open(%d)", i), err, ok)
			continue
		}
		budget -= FuzzRead(t, fmt.Sprintf("entry %d", i), rc, e.Size, readCap, ok)
		rc.Close()
	}
}

// ErrLimitWriter is what a LimitWriter fails with.
var ErrLimitWriter = errors.New("output limit")

// LimitWriter passes N bytes on to W, then fails with ErrLimitWriter
// (writing what still fits first): a bound on what a fuzzed decoder's
// WriteTo may produce.
type LimitWriter struct {
	W io.Writer
	N int
}

func (l *LimitWriter) Write(p []byte) (int, error) {
	if len(p) > l.N {
		k, _ := l.W.Write(p[:l.N])
		l.N = 0
		return k, ErrLimitWriter
	}
	l.N -= len(p)
	return l.W.Write(p)
}

// Classes is the test that an error is one of cls (errors.Is), for
// FuzzErr, FuzzRead and FuzzEntries.
func Classes(cls ...error) func(error) bool {
	return func(err error) bool {
		for _, c := range cls {
			if errors.Is(err, c) {
				return true
			}
		}
		return false
	}
}
