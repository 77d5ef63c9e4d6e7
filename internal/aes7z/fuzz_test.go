package aes7z

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzReader parses arbitrary coder properties and decrypts arbitrary
// data: no panic; errors are corrupt or unsupported; output is never
// longer than the input.
func FuzzReader(f *testing.F) {
	f.Add([]byte{0xC0 | 3, 0x1F, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, []byte("0123456789abcdef"), "pw")
	f.Add([]byte{0x3F}, []byte{1, 2, 3}, "")
	f.Fuzz(func(t *testing.T, props, data []byte, pw string) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		p, err := ParseProps(props)
		if err != nil {
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("ParseProps: %v", err)
			}
			return
		}
		if p.Cycles > 12 && p.Cycles != 0x3F {
			p.Cycles = 12 // the derivation cost is the budget's business, not the fuzzer's
		}
		key, err := Key(pw, &p)
		if err != nil {
			if !errors.Is(err, errs.ErrUnsupported) {
				t.Fatalf("Key: %v", err)
			}
			return
		}
		r, err := NewReader(bytes.NewReader(data), key, p.IV)
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(r)
		if err != nil && !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("Read: %v", err)
		}
		if len(out) > len(data) {
			t.Fatalf("%d bytes out of %d", len(out), len(data))
		}
	})
}
