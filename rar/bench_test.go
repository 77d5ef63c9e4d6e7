package rar

import (
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkRAR5 extracts the mixed-200 RAR5 archive (rar -m3 -md8m,
// non-solid) with this package; the comparison with nwaples/rardecode is
// in the bench module (BenchmarkPeer/rar5).
func BenchmarkRAR5(b *testing.B) {
	path := testutil.MixedArchive(b, "mixed-rar5.rar", "rar", "a", "-cfg-", "-m3", "-md8m", "-mt1", "-s-", "-ep", "-htc", "-qo-", "-idq", "{out}")
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()

	b.Run("archive", func(b *testing.B) {
		b.SetBytes(testutil.MixedTotalSize)
		b.ReportAllocs()
		for b.Loop() {
			a, err := Open(f, st.Size(), conf.From(&arc.Config{}))
			if err != nil {
				b.Fatal(err)
			}
			testutil.DrainEntries(b, a.Entries(), a.Open)
			a.Close()
		}
	})
	b.Run("reader", func(b *testing.B) {
		b.SetBytes(testutil.MixedTotalSize)
		b.ReportAllocs()
		for b.Loop() {
			r, err := NewReader(io.NewSectionReader(f, 0, st.Size()), conf.From(&arc.Config{}))
			if err != nil {
				b.Fatal(err)
			}
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
			r.Close()
		}
	})
}
