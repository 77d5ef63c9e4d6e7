package bench

import (
	stdzip "archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/zip"
)

// BenchmarkZipSmall opens and drains the small committed ZIP archives
// with unarc's zip package and with archive/zip: the per-archive cost
// (directory parsing, per-entry setup) rather than decoding speed.
func BenchmarkZipSmall(b *testing.B) {
	for _, name := range []string{"infozip-deflate.zip", "bsdtar-deflate.zip", "infozip-store.zip"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "zip", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.Run("unarc", func(b *testing.B) {
				want := zipUnarc(b, data)
				run(b, want, func(b *testing.B) int64 { return zipUnarc(b, data) })
			})
			b.Run("stdlib", func(b *testing.B) {
				want := zipStdlib(b, data)
				run(b, want, func(b *testing.B) int64 { return zipStdlib(b, data) })
			})
		})
	}
}

func zipUnarc(b *testing.B, data []byte) int64 {
	a, err := zip.Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for i, e := range a.Entries() {
		if !e.IsDir() {
			total += drainer{b}.drain(a.Open(i))
		}
	}
	return total
}

func zipStdlib(b *testing.B, data []byte) int64 {
	zr, err := stdzip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, f := range zr.File {
		if !f.FileInfo().IsDir() {
			total += drainer{b}.drain(f.Open())
		}
	}
	return total
}
