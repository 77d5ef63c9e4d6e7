package unarc_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// rar4PPMdSolid is mixed-200 as a solid RAR4 archive with PPMd forced
// (-mct+; rar6 then codes all of it with PPMd, 15 MiB models): only
// BenchmarkSeekRandom reads it.
var rar4PPMdSolid = benchCase{name: "rar4-ppmd-solid", file: "mixed-rar4-ppmd-solid.rar", tool: "rar6",
	args: []string{"a", "-ma4", "-m3", "-md4m", "-mct+", "-s", "-ep", "-idq", "{out}"}}

// BenchmarkSeekRandom reads 1 MiB at 100 random offsets (fixed seed) of
// mixed-3.bin, the last 50 MiB file of the mixed-200 solid 7z (LZMA2 and
// LZMA, 8 MiB dictionary), solid RAR5, solid RAR4 (-ma4 -md4m), solid
// RAR4 with PPMd (rar4PPMdSolid), the tar.gz (gzip -6, one stream) and
// the tar.xz (xz -6: one block, 8 MiB dictionary, LZMA2 chunks of at most
// 2 MiB), after a first full pass through a SeekableEntry that fills the
// checkpoints. cp=off is the baseline with
// no checkpoints, which decodes from the start of the solid stream for
// every read that goes backwards; it does 3 reads (it is slow).
// Reported: ms/read (wall), cpu-ms/read (user+sys of the process), the
// checkpoint memory held (cp-MiB), and with checkpoints bound-cpu-ms, the
// CPU time of decoding K+1 MiB (16+1) from the entry's start in the same
// run: the done-when is cpu-ms/read <= bound-cpu-ms. -short does 10 reads, not 100.
func BenchmarkSeekRandom(b *testing.B) {
	var cases []benchCase
	for _, c := range benchCases {
		if c.name == "7z-lzma2" || c.name == "7z-lzma" || c.name == "rar5-solid" || c.name == "rar4-solid" || c.name == "tar-gz" || c.name == "tar-xz" {
			cases = append(cases, c)
		}
	}
	cases = append(cases, rar4PPMdSolid)
	for _, c := range cases {
		for _, cp := range []int64{16 << 20, 0} {
			label := "cp=16M"
			reads := 100
			if testing.Short() {
				reads = 10
			}
			if cp == 0 {
				// No checkpoints: each read decodes from the start of
				// the solid stream.
				reads = 3
			}
			if cp == 0 {
				label = "cp=off"
			}
			b.Run(c.name+"/"+label, func(b *testing.B) {
				data := loadBench(b, c)
				opts := append(benchOptions(c), unarc.WithCheckpoints(cp, 256<<20))
				benchSeekReads(b, data, opts, "mixed-3.bin", reads, func(a *unarc.Archive, e *unarc.Entry, buf []byte) {
					if cp > 0 {
						// The bound of the done-when: decoding K MiB plus the
						// 1 MiB read, measured in the same run.
						b.ReportMetric(boundCPU(b, a, e, cp+int64(len(buf))), "bound-cpu-ms")
					}
				})
			})
		}
	}
}

// benchSeekReads opens entry name of the archive in data with opts, reads
// it through once (taking its checkpoints), then times b.N rounds of 1
// MiB ReadAts at reads random offsets (fixed seed), reporting
// cpu-ms/read (user+sys of the process), ms/read (wall) and the
// checkpoint memory held (cp-MiB); extra, if not nil, reports more.
func benchSeekReads(b *testing.B, data []byte, opts []unarc.Option, name string, reads int, extra func(*unarc.Archive, *unarc.Entry, []byte)) {
	a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	var e *unarc.Entry
	for _, x := range a.Entries() {
		if x.Name == name {
			e = x
		}
	}
	if e == nil {
		b.Fatalf("no %s", name)
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
	if extra != nil {
		extra(a, e, buf)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*reads), "ms/read")
	b.ReportMetric(float64(a.CheckpointStats().Bytes)/(1<<20), "cp-MiB")
}

// boundCPU is the CPU time, in milliseconds, of decoding n bytes of e
// sequentially from its start (the decoder positioned there first,
// untimed), the median of three.
func boundCPU(b *testing.B, a *unarc.Archive, e *unarc.Entry, n int64) float64 {
	var ms []float64
	for range 3 {
		s, err := a.OpenSeekable(e)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.ReadAt(make([]byte, 1), 0); err != nil {
			b.Fatal(err)
		}
		c0 := testutil.CPUTime()
		if _, err := io.CopyN(io.Discard, s, n); err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(testutil.CPUSince(c0).Microseconds())/1000)
		s.Close()
	}
	slices.Sort(ms)
	return ms[1]
}
