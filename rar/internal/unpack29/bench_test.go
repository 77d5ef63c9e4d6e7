package unpack29

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkDecode decodes the mixed-200 workload archived by rar6 -ma4
// (v29, 4 MiB dictionary, not solid), through the mini parser. The
// comparison with nwaples/rardecode is in the bench module
// (BenchmarkPeer/rar4).
func BenchmarkDecode(b *testing.B) {
	path := testutil.MixedArchive(b, "mixed-rar4.rar", "rar6", "a", "-ma4", "-m3", "-md4m", "-s-", "-ep", "-idq", "{out}")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	ents, err := parseRAR4(data)
	if err != nil {
		b.Fatal(err)
	}
	const total = 209715200
	b.Run("mixed-rar4/unarc", func(b *testing.B) {
		d := NewDecoder()
		defer d.Close()
		var src bytes.Reader
		b.SetBytes(total)
		b.ReportAllocs()
		warm := true // one untimed pass fills the pools: count steady-state allocations
		for warm || b.Loop() {
			warm = false
			var n int64
			for _, e := range ents {
				src.Reset(e.Packed)
				if err := d.Reset(&src, e.Dict, e.Size, e.Solid); err != nil {
					b.Fatal(err)
				}
				k, err := d.WriteTo(io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				n += k
			}
			if n != total {
				b.Fatalf("decoded %d bytes", n)
			}
		}
	})
}
