package xz_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/xz"
)

// TestOptions: negative limits fail NewReader with ErrInvalidOption; a
// limit below the block's dictionary fails with ErrLimit; Reset decodes
// the next input with the same options.
func TestOptions(t *testing.T) {
	for _, o := range []xz.ReaderOption{xz.WithMaxMemory(-1), xz.WithMaxDict(-1), xz.WithUncompressedSize(-1), xz.WithWorkers(0)} {
		if _, err := xz.NewReader(bytes.NewReader(nil), o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("NewReader: %v", err)
		}
	}
	data, _ := base64.StdEncoding.DecodeString(compressed)
	r, err := xz.NewReader(bytes.NewReader(data), xz.WithUncompressedSize(1150), xz.WithSingleStream())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if n, err := io.Copy(io.Discard, r); n != 1150 || err != nil {
			t.Fatalf("stream %d: %d, %v", i, n, err)
		}
		r.Reset(bytes.NewReader(data))
	}
	r.Close()
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, xz.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	r.Reset(bytes.NewReader(data))
	if n, err := io.Copy(io.Discard, r); n != 1150 || err != nil {
		t.Errorf("after Close and Reset: %d, %v", n, err)
	}
	r.Close()
	r, _ = xz.NewReader(bytes.NewReader(data), xz.WithWorkers(2))
	if n, err := io.Copy(io.Discard, r); n != 1150 || err != nil {
		t.Errorf("WithWorkers(2): %d, %v", n, err)
	}
	r.Close()
	r, _ = xz.NewReader(bytes.NewReader(data), xz.WithMaxDict(4096))
	if _, err := io.Copy(io.Discard, r); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("WithMaxDict(4096): %v", err)
	}
}
