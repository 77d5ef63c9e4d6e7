package tar

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
