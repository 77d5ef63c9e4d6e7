package deflate_test

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/deflate"
	"github.com/go-unarc/unarc/internal/errs"
)

// TestReset: Reset decodes a second stream; a cut stream is
// ErrTruncated; Buffered holds what followed a stream read from a
// source that cannot seek.
func TestReset(t *testing.T) {
	data := bytes.Repeat([]byte("reset keeps the window "), 1000)
	var packed bytes.Buffer
	w, _ := flate.NewWriter(&packed, 6)
	w.Write(data)
	w.Close()
	r := deflate.NewReader(bytes.NewReader(packed.Bytes()))
	for i := range 2 {
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("stream %d: %d bytes, %v", i, len(got), err)
		}
		if err := r.Reset(bytes.NewReader(packed.Bytes())); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Reset(nil); err == nil {
		t.Error("Reset(nil): no error")
	}
	r.Reset(bytes.NewReader(packed.Bytes()[:packed.Len()/2]))
	if _, err := io.Copy(io.Discard, r); !errors.Is(err, errs.ErrTruncated) {
		t.Errorf("cut stream: %v", err)
	}
	r.Close()

	tail := []byte("after the stream")
	r = deflate.NewReader(io.MultiReader(bytes.NewReader(packed.Bytes()), bytes.NewReader(tail)))
	defer r.Close()
	if n, err := io.Copy(io.Discard, r); n != int64(len(data)) || err != nil {
		t.Fatalf("%d, %v", n, err)
	}
	if !bytes.Equal(r.Buffered(), tail) {
		t.Errorf("Buffered %q", r.Buffered())
	}
}
