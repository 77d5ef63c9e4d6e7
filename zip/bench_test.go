package zip

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// extractArchive opens data and copies every entry to io.Discard, the
// way Extract drives an Archive.
func extractArchive(b *testing.B, ra io.ReaderAt, size int64) int64 {
	a, err := NewArchive(ra, size, nil)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for i, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil {
			b.Fatal(err)
		}
		rc.Close()
		total += n
	}
	return total
}

// extractPeer does the same with archive/zip (the standard library).
func extractPeer(b *testing.B, ra io.ReaderAt, size int64) int64 {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil {
			b.Fatal(err)
		}
		rc.Close()
		total += n
	}
	return total
}

func extractStream(b *testing.B, data []byte) int64 {
	z, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if e.IsDir() {
			continue
		}
		n, err := io.Copy(io.Discard, z)
		if err != nil {
			b.Fatal(err)
		}
		total += n
	}
	z.Close()
	return total
}

func benchAll(b *testing.B, data []byte, ra io.ReaderAt, size int64) {
	b.Run("unarc-Archive", func(b *testing.B) {
		b.SetBytes(extractArchive(b, ra, size))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			extractArchive(b, ra, size)
		}
	})
	if data != nil {
		b.Run("unarc-Reader", func(b *testing.B) {
			b.SetBytes(extractStream(b, data))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				extractStream(b, data)
			}
		})
	}
	b.Run("archive-zip", func(b *testing.B) {
		b.SetBytes(extractPeer(b, ra, size))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			extractPeer(b, ra, size)
		}
	})
}

func BenchmarkSmall(b *testing.B) {
	for _, name := range []string{"infozip-deflate.zip", "bsdtar-deflate.zip", "infozip-store.zip"} {
		data := readTestdata(b, name)
		b.Run(name, func(b *testing.B) { benchAll(b, data, bytes.NewReader(data), int64(len(data))) })
	}
}

// BenchmarkMixed extracts the mixed-200 workload zipped by 7zz (Deflate
// -mx5), against archive/zip in the same run.
func BenchmarkMixed(b *testing.B) {
	for _, tc := range []struct{ name, method string }{{"deflate", "Deflate"}, {"store", "Copy"}} {
		b.Run(tc.name, func(b *testing.B) {
			path := testutil.MixedArchive(b, "mixed-200-"+tc.name+".zip", "7zz", "a", "-tzip", "-mx5", "-mmt1", "-mm="+tc.method, "-bd", "-bso0", "{out}")
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			benchAll(b, nil, f, st.Size())
		})
	}
}
