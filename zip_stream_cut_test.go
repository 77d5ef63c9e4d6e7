package unarc_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc"
)

// TestReaderVerifyZipCutEnd: Reader.Verify reads a ZIP stream's central
// directory after the last entry, so a stream cut inside its end record
// fails with ErrTruncated (as Open of the cut file does) instead of
// passing because every entry's data was whole.
func TestReaderVerifyZipCutEnd(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("a.txt")
	io.WriteString(w, "content")
	zw.Close()
	data := buf.Bytes()
	for _, cut := range []int{0, 3, 10} {
		r, err := unarc.NewReader(bytes.NewReader(data[:len(data)-cut]))
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Verify(context.Background())
		r.Close()
		if cut == 0 && err != nil {
			t.Errorf("whole: %v", err)
		}
		if cut > 0 && !errors.Is(err, unarc.ErrTruncated) {
			t.Errorf("cut by %d: %v, want ErrTruncated", cut, err)
		}
	}
}
