package unpack50

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkDecode extracts the mixed-200 RAR 5 archive (issue 5) to
// io.Discard with this package (through the test's mini parser), from
// memory. The comparison with nwaples/rardecode is in the bench module
// (BenchmarkPeer/rar5).
func BenchmarkDecode(b *testing.B) {
	path := testutil.MixedArchive(b, "mixed-rar5.rar", "rar", "a", "-cfg-", "-m3", "-md8m", "-mt1", "-s-", "-ep", "-htc", "-qo-", "-idq", "{out}")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	if ents, err := parseRAR5(data); err == nil {
		for _, e := range ents {
			total += e.size
		}
	}
	b.Run("mixed-rar5/unarc", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		var r bytes.Reader
		extract := func() {
			ents, err := parseRAR5(data)
			if err != nil {
				b.Fatal(err)
			}
			d := NewDecoder()
			for _, e := range ents {
				r.Reset(e.packed)
				if err := d.ResetVersion(&r, e.version, e.dict, e.size, e.solid); err != nil {
					b.Fatal(err)
				}
				if n, err := d.WriteTo(io.Discard); err != nil || n != e.size {
					b.Fatal(n, err)
				}
			}
			d.Close()
		}
		extract() // warm the pools: b.Loop measures the steady state
		for b.Loop() {
			extract()
		}
	})
}
