package lzma

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestStepSize: with StepSize(n) every Read of n bytes takes all the
// decoder decoded, so it can take a checkpoint after each; the stream
// reads the same; Done only once all is read; a step outside [1,
// 256 KiB] is an invalid option.
func TestStepSize(t *testing.T) {
	data := genMixed(3, 300<<10)
	comp, p := lzma1Stream(t, data, 1<<16)
	var z Reader
	defer z.Close()
	const n = 4096
	if err := z.Reset(bytes.NewReader(comp), p, int64(len(data)), StepSize(n)); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, n)
	for {
		m, err := z.Read(buf)
		got = append(got, buf[:m]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !z.CanCheckpoint() && !z.Done() {
			t.Fatalf("at %d: no checkpoint after a Read of %d", len(got), n)
		}
		if z.Done() != (len(got) == len(data)) {
			t.Fatalf("at %d of %d: Done %v", len(got), len(data), z.Done())
		}
	}
	if !bytes.Equal(got, data) || !z.Done() {
		t.Fatalf("output differs (%d of %d bytes), Done %v", len(got), len(data), z.Done())
	}
	for _, bad := range []int{0, -1, stepMax + 1} {
		if err := z.Reset(bytes.NewReader(comp), p, int64(len(data)), StepSize(bad)); !errors.Is(err, errs.ErrInvalidOption) {
			t.Fatalf("StepSize(%d): %v", bad, err)
		}
	}
}
