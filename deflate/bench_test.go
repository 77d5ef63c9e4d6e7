package deflate

import (
	"bytes"
	"compress/flate"
	"io"
	"sync"
	"testing"

	kflate "github.com/klauspost/compress/flate"

	"github.com/go-unarc/unarc/internal/testutil"
)

var benchStream struct {
	once sync.Once
	raw  []byte // the Deflate stream
	size int64  // uncompressed size
}

// mixedStream is testutil.Mixed(0) (52 MB) compressed once at level 5 with
// compress/flate, cached in memory for all sub-benchmarks.
func mixedStream(b *testing.B) ([]byte, int64) {
	benchStream.once.Do(func() {
		data := testutil.Mixed(0)
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, 5)
		w.Write(data)
		w.Close()
		benchStream.raw, benchStream.size = buf.Bytes(), int64(len(data))
	})
	return benchStream.raw, benchStream.size
}

// BenchmarkDecode decodes the same stream with our decoder and the two
// peers, each reused across iterations and read with io.Copy from a
// *bytes.Reader.
func BenchmarkDecode(b *testing.B) {
	stream, size := mixedStream(b)
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
	b.Run("stdlib", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		br := bytes.NewReader(stream)
		z := flate.NewReader(br)
		for b.Loop() {
			br.Reset(stream)
			z.(flate.Resetter).Reset(br, nil)
			if n, err := io.Copy(io.Discard, z); err != nil || n != size {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("klauspost", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		br := bytes.NewReader(stream)
		z := kflate.NewReader(br)
		for b.Loop() {
			br.Reset(stream)
			z.(kflate.Resetter).Reset(br, nil)
			if n, err := io.Copy(io.Discard, z); err != nil || n != size {
				b.Fatal(n, err)
			}
		}
	})
}
