package unpack50

import (
	"bytes"
	"fmt"
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
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("mixed-rar5/unarc/workers=%d", w), func(b *testing.B) { benchDecode(b, data, total, w) })
	}
}

func benchDecode(b *testing.B, data []byte, total int64, workers int) {
	b.SetBytes(total)
	b.ReportAllocs()
	var r bytes.Reader
	extract := func() {
		ents, err := parseRAR5(data)
		if err != nil {
			b.Fatal(err)
		}
		d := NewDecoder()
		d.SetWorkers(workers)
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
}
