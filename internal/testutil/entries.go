package testutil

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// ReadClose reads rc to its end and closes it. An error from the call
// that opened rc is handed back as is, so it reads a.Open(i) in one
// call: ReadClose(a.Open(i)).
func ReadClose(rc io.ReadCloser, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// ReadEach reads the entries 0 to n-1 that keep accepts (nil: all)
// through open, failing t where one fails: their contents by index, the
// sequential reads that the seek tests compare with.
func ReadEach(t TB, n int, keep func(i int) bool, open func(i int) (io.ReadCloser, error)) map[int][]byte {
	t.Helper()
	want := map[int][]byte{}
	for i := range n {
		if keep != nil && !keep(i) {
			continue
		}
		rc, err := open(i)
		b, err := ReadClose(rc, err)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		want[i] = b
	}
	return want
}

// Opener opens entry i whole (Open) and at a point at or before off
// (OpenAt), as the format packages' archives do.
type Opener interface {
	Open(i int) (io.ReadCloser, error)
	AtOpener
}

// EntryFuncs is an Opener made of two functions: a format Archive's
// Open and the OpenAt of its capability view (engine.View).
type EntryFuncs struct {
	OpenFunc   func(i int) (io.ReadCloser, error)
	OpenAtFunc func(i int, off int64) (io.ReadCloser, int64, error)
}

// Open is OpenFunc.
func (f EntryFuncs) Open(i int) (io.ReadCloser, error) { return f.OpenFunc(i) }

// OpenAt is OpenAtFunc.
func (f EntryFuncs) OpenAt(i int, off int64) (io.ReadCloser, int64, error) {
	return f.OpenAtFunc(i, off)
}

// CheckOpenAt reads each entry of a of 100 bytes or more (info gives
// its name, size and whether OpenAt starts right at the offset asked)
// whole, then checks it with CheckEntryAt at each of offs and at its
// last byte. It returns how many entries it checked.
func CheckOpenAt[E any](t TB, a Opener, entries []E, info func(e E) (name string, size int64, direct bool), offs ...int64) int {
	t.Helper()
	seen := 0
	for i, e := range entries {
		name, size, direct := info(e)
		if size < 100 {
			continue
		}
		want, err := ReadClose(a.Open(i))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		CheckEntryAt(t, a, i, name, want, direct, append(offs, size-1)...)
		seen++
	}
	return seen
}

// CheckEntryAt reads entry i of a (named name, whose bytes are want)
// through OpenAt at each of offs: the reader must start at the offset
// when direct, at 0 when not, and give want from there.
func CheckEntryAt(t TB, a AtOpener, i int, name string, want []byte, direct bool, offs ...int64) {
	t.Helper()
	for _, off := range offs {
		r, start, err := a.OpenAt(i, off)
		if err != nil {
			t.Fatalf("%s at %d: %v", name, off, err)
		}
		if direct && start != off || !direct && start != 0 {
			t.Fatalf("%s at %d: start %d", name, off, start)
		}
		got, err := ReadClose(r, nil)
		if err != nil {
			t.Fatalf("%s at %d: %v", name, off, err)
		}
		if !bytes.Equal(got, want[start:]) {
			t.Fatalf("%s at %d: bytes differ", name, off)
		}
	}
}

// ReadTestdata is the file at elem under the module's testdata folder,
// failing t where it cannot be read.
func ReadTestdata(t TB, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{ModuleRoot(), "testdata"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
