package unarc_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkSeekRandomKinds is BenchmarkSeekRandom for the BZip2 and PPMd
// checkpoints, on the cached benchmark archives (~/.cache/unarc-bench,
// made by the bench module; skipped when absent): 7z PPMd and ZIP PPMd
// of the first 8 MiB of mixed-0.bin (7-Zip -mx5: a 16 MiB model), and
// mixed-3.bin (50 MiB) of the BZip2 ZIP of mixed-200 (900k blocks).
// After a first pass through a SeekableEntry, 1 MiB reads at random
// offsets (fixed seed), with checkpoints every 1 MiB (cp=1M) and with
// none (cp=off, each backward read decoding from the entry's start).
// Reported: cpu-ms/read (user+sys of the process), ms/read (wall) and
// the checkpoint memory held (cp-MiB; PPMd: the whole model each).
func BenchmarkSeekRandomKinds(b *testing.B) {
	home, _ := os.UserHomeDir()
	dir := filepath.Join(home, ".cache", "unarc-bench")
	for _, c := range []struct{ name, file, entry string }{
		{"7z-ppmd-8m", "7z-ppmd-mixed0-8m.7z", "mixed-0-8m.bin"},
		{"zip-ppmd-8m", "zip-ppmd-mixed0-8m.zip", "mixed-0-8m.bin"},
		{"zip-bzip2", "mixed-zip-bzip2.zip", "mixed-3.bin"},
	} {
		for _, cp := range []int64{1 << 20, 0} {
			label := "cp=1M"
			reads := 20
			if testing.Short() {
				reads = 5
			}
			if cp == 0 {
				label, reads = "cp=off", 3
			}
			b.Run(c.name+"/"+label, func(b *testing.B) {
				data, err := os.ReadFile(filepath.Join(dir, c.file))
				if err != nil {
					b.Skipf("no cached benchmark archive: %v", err)
				}
				a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), unarc.WithWorkers(1),
					unarc.WithCheckpoints(cp, unarc.DefaultCheckpointMemory))
				if err != nil {
					b.Fatal(err)
				}
				defer a.Close()
				var e *unarc.Entry
				for _, x := range a.Entries() {
					if x.Name == c.entry {
						e = x
					}
				}
				if e == nil {
					b.Fatalf("no %s", c.entry)
				}
				s, err := a.OpenSeekable(e)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				t0, c0 := time.Now(), testutil.CPUTime()
				if n, err := io.Copy(io.Discard, s); err != nil || n != e.Size {
					b.Fatalf("first pass: %d bytes, %v", n, err)
				}
				b.Logf("first pass %v (CPU %v), checkpoints %+v", time.Since(t0), testutil.CPUSince(c0), a.CheckpointStats())
				buf := make([]byte, 1<<20)
				r := rand.New(rand.NewPCG(18, 1))
				offs := make([]int64, reads)
				for i := range offs {
					offs[i] = r.Int64N(e.Size - int64(len(buf)))
				}
				b.ResetTimer()
				c0 = testutil.CPUTime()
				for range b.N {
					for _, off := range offs {
						if _, err := s.ReadAt(buf, off); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(testutil.CPUSince(c0).Milliseconds())/float64(b.N*reads), "cpu-ms/read")
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*reads), "ms/read")
				b.ReportMetric(float64(a.CheckpointStats().Bytes)/(1<<20), "cp-MiB")
			})
		}
	}
}
