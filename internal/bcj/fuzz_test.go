package bcj

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzFilters runs every filter over arbitrary data, whole and one byte
// at a time: no panic, same length out, same bytes either way.
func FuzzFilters(f *testing.F) {
	f.Add(codeLike(512, 1), uint32(0)) // small: the fuzzer minimizes every new input, slowly on big ones
	f.Add([]byte{0xE8, 0, 0, 0, 0, 0xE8, 0xFF, 0xFF, 0xFF}, uint32(5))
	f.Fuzz(func(t *testing.T, data []byte, start uint32) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		for k := X86; k <= Delta; k++ {
			a, err := io.ReadAll(NewReader(bytes.NewReader(data), k, start, int(start%256)+1))
			if err != nil || len(a) != len(data) {
				t.Fatalf("%v: %d bytes, %v", k, len(a), err)
			}
			b, _ := io.ReadAll(NewReader(iotest.OneByteReader(bytes.NewReader(data)), k, start, int(start%256)+1))
			if !bytes.Equal(a, b) {
				t.Fatalf("%v: output depends on chunking", k)
			}
		}
	})
}

// FuzzBCJ2 feeds arbitrary streams to the BCJ2 decoder.
func FuzzBCJ2(f *testing.F) {
	f.Add([]byte{0xE8, 1, 2, 0xE9, 0x0F, 0x85, 9}, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 2}, []byte{0, 0x40, 0, 0, 0, 0, 0}, int64(12))
	f.Fuzz(func(t *testing.T, main, call, jump, rc []byte, size int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		if size > 1<<20 {
			size = 1 << 20
		}
		d := NewBCJ2(bytes.NewReader(main), bytes.NewReader(call), bytes.NewReader(jump), bytes.NewReader(rc), size)
		n, _ := io.Copy(io.Discard, d)
		if size >= 0 && n > size {
			t.Fatalf("%d bytes out of %d", n, size)
		}
	})
}
