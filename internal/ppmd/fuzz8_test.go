package ppmd

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzPPMd8 decodes arbitrary ZIP method 98 streams. The header's memory
// field is forced to 1 MiB (small arenas fill and restore often, which
// exercises restart and cut-off); order and restoration method stay as
// mutated. It must not panic or hang, errors must be corrupt, truncated
// or unsupported, and a fresh reader, a Reset reader and a one-byte
// source must agree.
func FuzzPPMd8(f *testing.F) {
	for _, name := range ppmdZips {
		for _, e := range ppmdEntries(f, zipTestdata(name)) {
			f.Add(e.Packed[:min(len(e.Packed), 1024)], uint32(min(e.Size, 6000)))
			if len(e.Packed) < 1024 {
				f.Add(e.Packed, uint32(e.Size)) // whole stream: ends cleanly
			}
		}
	}
	f.Add([]byte{0x05, 0x00, 0, 0, 0, 0, 1, 2, 3}, uint32(100))
	f.Add([]byte{0x0F, 0x10, 0x12, 0x34, 0x56, 0x78, 0x9A}, uint32(5000))
	reused, err := NewReaderZip(bytes.NewReader(ppmdEntries(f, zipTestdata("ppmd-mx1.zip"))[0].Packed), -1, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint32) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 48<<20)()
		if len(data) >= 2 {
			data = bytes.Clone(data)
			data[0] &= 0x0F // memory - 1 = 0: a 1 MiB model
			data[1] &= 0xF0
		}
		n := int64(size%(1<<14)) - 1 // -1: unknown size
		z, err := NewReaderZip(bytes.NewReader(data), n, 1<<20)
		if err != nil {
			checkClass(t, err)
			return
		}
		a, errA := io.ReadAll(z)
		z.Close()
		checkClass(t, errA)
		if n >= 0 && errA == nil && int64(len(a)) != n {
			t.Fatalf("decoded %d bytes without error, declared %d", len(a), n)
		}

		if err := reused.Reset(iotest.OneByteReader(bytes.NewReader(data)), n, 1<<20); err != nil {
			t.Fatalf("Reset failed after NewReaderZip succeeded: %v", err)
		}
		b, errB := io.ReadAll(reused)
		if !bytes.Equal(a, b) || (errA == nil) != (errB == nil) {
			t.Fatalf("fresh: %d bytes, %v; reset+one-byte: %d bytes, %v", len(a), errA, len(b), errB)
		}
	})
}
