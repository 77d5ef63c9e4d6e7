package xz

import (
	"bytes"
	"io"
	"testing"
)

func BenchmarkSmall(b *testing.B) {
	data := readTestFile(b, "check-sha256.xz")
	z := new(Reader)
	b.ReportAllocs()
	for b.Loop() {
		z.Reset(bytes.NewReader(data))
		if _, err := io.Copy(io.Discard, z); err != nil {
			b.Fatal(err)
		}
	}
}
