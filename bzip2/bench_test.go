package bzip2

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// benchStream is the first 8 MiB of mixed-0.bin compressed by bzip2 -9,
// kept in the benchmark cache.
func benchStream(b *testing.B) ([]byte, int64) {
	b.Helper()
	bz, err := exec.LookPath("bzip2")
	if err != nil {
		b.Skip("bzip2 not installed")
	}
	path := filepath.Join(testutil.CacheDir(b), "mixed-0-8m-l9.bz2")
	data, err := os.ReadFile(path)
	if err != nil {
		raw := testutil.Mixed(0)[:8<<20]
		cmd := exec.Command(bz, "-9", "-c")
		cmd.Stdin = bytes.NewReader(raw)
		data, err = cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return data, 8 << 20
}

// BenchmarkDecode compares this package (one and two workers) with
// compress/bzip2 on the same stream in the same run. cpu-ms/op is the
// process CPU time per decode (all goroutines), which a busy machine
// disturbs far less than ns/op.
func BenchmarkDecode(b *testing.B) {
	data, size := benchStream(b)
	b.Run("ours", func(b *testing.B) { benchOurs(b, data, size, 1) })
	b.Run("ours-2workers", func(b *testing.B) { benchOurs(b, data, size, 2) })
	b.Run("stdlib", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		c0 := testutil.CPUTime()
		for b.Loop() {
			n, err := io.Copy(io.Discard, stdbzip2.NewReader(bytes.NewReader(data)))
			if err != nil || n != size {
				b.Fatal(n, err)
			}
		}
		reportCPU(b, c0)
	})
}

func benchOurs(b *testing.B, data []byte, size int64, workers int) {
	b.SetBytes(size)
	b.ReportAllocs()
	z := new(Reader)
	defer z.Close()
	c0 := testutil.CPUTime()
	for b.Loop() {
		if err := z.Reset(bytes.NewReader(data), Workers(workers)); err != nil {
			b.Fatal(err)
		}
		n, err := z.WriteTo(io.Discard)
		if err != nil || n != size {
			b.Fatal(n, err)
		}
	}
	reportCPU(b, c0)
}

func reportCPU(b *testing.B, c0 time.Duration) {
	if c := testutil.CPUSince(c0); c0 >= 0 {
		b.ReportMetric(float64(c.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}
