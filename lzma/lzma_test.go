package lzma_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/lzma"
)

// TestOptionErrors: a value that cannot be meant fails the constructor
// with errs.ErrInvalidOption, before anything is read or written.
func TestOptionErrors(t *testing.T) {
	var buf bytes.Buffer
	for name, o := range map[string]lzma.WriterOption{
		"level":      lzma.WithLevel(10),
		"dict":       lzma.WithDictSize(4<<10 - 1),
		"lits":       lzma.WithLiteralBits(9, 0, 0),
		"fastbytes":  lzma.WithFastBytes(4),
		"mf":         lzma.WithMatchFinder("bt9"),
		"depth":      lzma.WithDepth(-1),
		"threads":    lzma.WithThreads(0),
		"block":      lzma.WithBlockSize(-1),
		"knownsize":  lzma.WithKnownSize(-2),
		"max memory": lzma.WithMaxMemory(-1),
	} {
		if _, err := lzma.NewWriter2(&buf, o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("%s: NewWriter2: %v", name, err)
		}
	}
	for name, o := range map[string]lzma.ReaderOption{
		"maxdict": lzma.WithMaxDict(-1),
		"workers": lzma.WithWorkers(0),
	} {
		if _, err := lzma.NewReader2(&buf, 1<<20, -1, o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("%s: NewReader2: %v", name, err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes written", buf.Len())
	}
	if _, err := lzma.NewWriter2(&buf, lzma.WithMaxMemory(1<<20)); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("MaxMemory 1 MiB at level 5: %v", err)
	}
}

// TestReset: each form decodes a second stream after Reset, and Read
// after Close is ErrClosed.
func TestReset(t *testing.T) {
	data := bytes.Repeat([]byte("reset keeps the buffers "), 2000)
	var lz, lz2 bytes.Buffer
	w, err := lzma.NewWriter(&lz, lzma.WithLevel(0))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, err := lzma.NewWriter2(&lz2, lzma.WithLevel(0), lzma.WithThreads(2), lzma.WithBlockSize(1<<14))
	if err != nil {
		t.Fatal(err)
	}
	w2.Write(data)
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	for name, mk := range map[string]func(io.Reader) (*lzma.Reader, error){
		".lzma": func(r io.Reader) (*lzma.Reader, error) { return lzma.NewReader(r) },
		"lzma2": func(r io.Reader) (*lzma.Reader, error) {
			return lzma.NewReader2(r, w2.DictSize(), int64(len(data)))
		},
		"lzma2 mt": func(r io.Reader) (*lzma.Reader, error) {
			return lzma.NewReader2(r, w2.DictSize(), -1, lzma.WithWorkers(3))
		},
	} {
		src := lz.Bytes()
		if name != ".lzma" {
			src = lz2.Bytes()
		}
		r, err := mk(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range 2 {
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: stream %d: %d bytes, %v", name, i, len(got), err)
			}
			if err := r.Reset(bytes.NewReader(src)); err != nil {
				t.Fatalf("%s: Reset: %v", name, err)
			}
		}
		r.Close()
		if _, err := r.Read(make([]byte, 1)); !errors.Is(err, lzma.ErrClosed) {
			t.Errorf("%s: Read after Close: %v", name, err)
		}
		// Reset after Close takes buffers from the pools again.
		if err := r.Reset(bytes.NewReader(src)); err != nil {
			t.Fatalf("%s: Reset after Close: %v", name, err)
		}
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: after Close and Reset: %d bytes, %v", name, len(got), err)
		}
		r.Close()
	}
}

// TestWriterClosed: Write and Flush after Close are ErrWriterClosed.
func TestWriterClosed(t *testing.T) {
	var buf bytes.Buffer
	w, err := lzma.NewRawWriter(&buf, lzma.WithLevel(0))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := w.Write([]byte("x")); !errors.Is(err, lzma.ErrWriterClosed) {
		t.Errorf("Writer.Write after Close: %v", err)
	}
	w2, err := lzma.NewWriter2(&buf, lzma.WithLevel(0))
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if err := w2.Flush(); !errors.Is(err, lzma.ErrWriterClosed) {
		t.Errorf("Writer2.Flush after Close: %v", err)
	}
}
