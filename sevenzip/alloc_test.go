package sevenzip

import (
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAllocsPerExtraction bounds what one open-and-extract of a small
// solid LZMA2 archive allocates once the pools are warm.
func TestAllocsPerExtraction(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	f, err := os.Open("../testdata/7z/lzma2.7z")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	run := func() {
		a, err := Open(f, st.Size(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range a.Entries() {
			if e.IsDir() {
				continue
			}
			rc, err := a.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, rc); err != nil {
				t.Fatal(err)
			}
			rc.Close()
		}
		a.Close()
	}
	run()
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run()
		}
	})
	t.Logf("%d B/op, %d allocs/op", res.AllocedBytesPerOp(), res.AllocsPerOp())
	if res.AllocedBytesPerOp() > 16<<10 {
		t.Errorf("%d bytes allocated per extraction, want <= 16 KiB", res.AllocedBytesPerOp())
	}
}

func BenchmarkSmallLZMA2(b *testing.B) {
	f, err := os.Open("../testdata/7z/lzma2.7z")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.ReportAllocs()
	for b.Loop() {
		a, err := Open(f, st.Size(), nil)
		if err != nil {
			b.Fatal(err)
		}
		for i, e := range a.Entries() {
			if e.IsDir() {
				continue
			}
			rc, _ := a.Open(i)
			io.Copy(io.Discard, rc)
			rc.Close()
		}
		a.Close()
	}
}
