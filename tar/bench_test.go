package tar

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkReaderMixed reads the cached mixed-200 tarballs (made by
// BenchmarkExtract in the root package; skipped when absent) through the
// forward Reader on 1 and 2 workers: BenchmarkReaderMixed/<case>/<workers>.
func BenchmarkReaderMixed(b *testing.B) {
	for _, c := range []string{"tar-zst.tar.zst", "tar-gz.tar.gz", "tar-xz.tar.xz"} {
		b.Run(c[:len(c)-len(filepath.Ext(c))-4], func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(testutil.CacheDir(b), "mixed-"+c))
			if err != nil {
				b.Skipf("no cached tarball (run BenchmarkExtract in the root package first): %v", err)
			}
			for _, w := range []int{1, 2} {
				b.Run(fmt.Sprint(w), func(b *testing.B) {
					if _, err := streamOfDiscard(data, w); err != nil {
						b.Fatal(err)
					}
					b.SetBytes(testutil.MixedTotalSize)
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if n, err := streamOfDiscard(data, w); err != nil || n != testutil.MixedTotalSize {
							b.Fatal(n, err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkListHeaders lists a tar of 10,000 small files with the header
// reader and with archive/tar, over an io.ReaderAt (data skipped by
// offset) and over a plain stream (data read and dropped, as in a
// compressed tarball): BenchmarkListHeaders/<reader>/<source>.
func BenchmarkListHeaders(b *testing.B) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	body := bytes.Repeat([]byte("x"), 700)
	for i := range 10000 {
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("dir%02d/file%05d.txt", i/500, i), Size: int64(len(body)),
			Mode: 0o644, Uname: "user", Gname: "staff", ModTime: time.Unix(1700000000, 0), Typeflag: tar.TypeReg})
		w.Write(body)
	}
	w.Close()
	data := buf.Bytes()
	source := func(seek bool) io.Reader {
		if seek {
			return &seekReader{ra: bytes.NewReader(data), size: int64(len(data))}
		}
		return struct{ io.Reader }{bytes.NewReader(data)}
	}
	count := func(b *testing.B, next func() (*tar.Header, error)) {
		n := 0
		for {
			if _, err := next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 10000 {
			b.Fatal(n)
		}
	}
	for _, seek := range []bool{true, false} {
		name := map[bool]string{true: "readerat", false: "stream"}[seek]
		b.Run("ours/"+name, func(b *testing.B) {
			b.ReportAllocs()
			var t headerReader
			for i := 0; i < b.N; i++ {
				t.reset(source(seek))
				count(b, t.Next)
			}
			t.release()
		})
		b.Run("archive-tar/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				count(b, tar.NewReader(source(seek)).Next)
			}
		})
	}
}
