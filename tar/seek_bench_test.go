package tar

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkGzipDecoders decodes the cached mixed-200 tar.gz (made by
// BenchmarkExtract in the root package; skipped when absent) with
// klauspost's gzip reader (which tar used before) and with the deflate
// package (gzipStream, as ordinary reading does: decomp), the reason
// the latter reads gzip now. Compare cpu-ms/op (user+sys of the
// process): the machine may be shared.
func BenchmarkGzipDecoders(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testutil.CacheDir(b), "mixed-tar-gz.tar.gz"))
	if err != nil {
		b.Skipf("no cached tarball (run BenchmarkExtract in the root package first): %v", err)
	}
	lim := conf.MustLimits(arc.Limits{})
	for _, c := range []struct {
		name string
		open func(in *countReader) (io.Reader, func(), error)
	}{
		{"klauspost", func(in *countReader) (io.Reader, func(), error) {
			z, err := gzip.NewReader(bufio.NewReaderSize(bytes.NewReader(data), gzipBufSize))
			return z, func() { z.Close() }, err
		}},
		{"deflate", func(in *countReader) (io.Reader, func(), error) {
			in.r = bytes.NewReader(data)
			d := new(decomp)
			err := d.open(kindGzip, in, int64(len(data)), &lim, 1)
			return d, func() { d.Close() }, err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(testutil.MixedTotalSize)
			b.ReportAllocs()
			c0 := testutil.CPUTime()
			for range b.N {
				var in countReader
				r, done, err := c.open(&in)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				done()
			}
			b.ReportMetric(float64(testutil.CPUSince(c0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
