package xz

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// benchXZ is testutil.MixedXZ's file: 26 MiB of .xz for 50 MiB.
func benchXZ(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile(testutil.MixedXZ(b))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecode decodes a 26 MiB .xz of 50 MiB (see benchXZ) with a
// reused Reader: no allocation per stream once warm.
func BenchmarkDecode(b *testing.B) {
	data := benchXZ(b)
	want := testutil.Mixed(0)
	z := new(Reader)
	defer z.Close()
	decode := testutil.ReusedWriterTo(b, data, want, func(r io.Reader) (io.WriterTo, error) { return z, z.Reset(r) })
	b.SetBytes(int64(len(want)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		decode(io.Discard)
	}
}

// BenchmarkSmall decodes a 16 KiB file: the per-stream overhead.
func BenchmarkSmall(b *testing.B) {
	data := readTestFile(b, "check-sha256.xz")
	var br bytes.Reader
	z := new(Reader)
	defer z.Close()
	b.ReportAllocs()
	for b.Loop() {
		br.Reset(data)
		z.Reset(&br)
		if _, err := z.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkXZBlocks decodes an 8 MiB stream of four 2 MiB blocks made by
// xz -T2 (sizes in every block header) with a reused Reader, serially
// and with 2 workers: the parallel speed-up, and no allocation per
// block once warm.
func BenchmarkXZBlocks(b *testing.B) {
	want, data := mtStream(b, 4, 2<<20)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			z := new(Reader)
			defer z.Close()
			decode := testutil.ReusedWriterTo(b, data, want, func(r io.Reader) (io.WriterTo, error) { return z, z.Reset(r, Workers(workers)) })
			b.SetBytes(int64(len(want)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				decode(io.Discard)
			}
		})
	}
}
