package bzip2_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/bzip2"
	"github.com/go-unarc/unarc/internal/errs"
)

// TestOptions: values that cannot be meant fail NewReader; a limit below
// the block table fails with ErrLimit; Reset decodes the next input with
// the same options; Read after Close is ErrClosed.
func TestOptions(t *testing.T) {
	for _, o := range []bzip2.ReaderOption{bzip2.WithMaxMemory(-1), bzip2.WithWorkers(0)} {
		if _, err := bzip2.NewReader(bytes.NewReader(nil), o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("NewReader: %v", err)
		}
	}
	data, _ := base64.StdEncoding.DecodeString(compressed)
	r, err := bzip2.NewReader(bytes.NewReader(data), bzip2.WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if n, err := io.Copy(io.Discard, r); n != 1000 || err != nil {
			t.Fatalf("stream %d: %d, %v", i, n, err)
		}
		r.Reset(bytes.NewReader(data))
	}
	r.Close()
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, bzip2.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	r.Reset(bytes.NewReader(data))
	if n, err := io.Copy(io.Discard, r); n != 1000 || err != nil {
		t.Errorf("after Close and Reset: %d, %v", n, err)
	}
	r.Close()
	r, _ = bzip2.NewReader(bytes.NewReader(data), bzip2.WithMaxMemory(1<<20))
	if _, err := io.Copy(io.Discard, r); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("WithMaxMemory(1 MiB) on BZh9: %v", err)
	}
}
