package deflate

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkDecode decodes the stream with this package, reused across
// iterations and read with io.Copy from a *bytes.Reader. The comparison
// with compress/flate and klauspost/compress/flate on the same stream is
// in the bench module (BenchmarkDeflate, TestDeflateCPUTime).
func BenchmarkDecode(b *testing.B) {
	stream, size := testutil.MixedDeflate()
	b.Run("unarc", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		br := bytes.NewReader(stream)
		z := NewReader(br)
		for b.Loop() {
			br.Reset(stream)
			z.Reset(br, false)
			if n, err := io.Copy(io.Discard, z); err != nil || n != size {
				b.Fatal(n, err)
			}
		}
		z.Close()
	})
}

// BenchmarkDecode64 decodes mixed-0.bin from a Deflate64 zip made by
// 7-Zip (no Go peer decodes Deflate64).
func BenchmarkDecode64(b *testing.B) {
	path := testutil.MixedArchive(b, "mixed-200-deflate64.zip", "7zz", "a", "-tzip", "-mm=Deflate64", "-mx5", "-mmt1", "{out}")
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var h [30]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		b.Fatal(err)
	}
	if binary.LittleEndian.Uint16(h[8:]) != 9 {
		b.Fatalf("first entry has method %d, want 9", binary.LittleEndian.Uint16(h[8:]))
	}
	csize := int64(binary.LittleEndian.Uint32(h[18:]))
	size := int64(binary.LittleEndian.Uint32(h[22:]))
	skip := int64(binary.LittleEndian.Uint16(h[26:])) + int64(binary.LittleEndian.Uint16(h[28:]))
	stream := make([]byte, csize)
	if _, err := f.ReadAt(stream, 30+skip); err != nil {
		b.Fatal(err)
	}
	b.Run("unarc", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		br := bytes.NewReader(stream)
		z := NewReader64(br)
		for b.Loop() {
			br.Reset(stream)
			z.Reset(br, true)
			if n, err := io.Copy(io.Discard, z); err != nil || n != size {
				b.Fatal(n, err)
			}
		}
		z.Close()
	})
}
