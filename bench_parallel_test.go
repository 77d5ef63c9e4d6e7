package unarc_test

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// parallelBenchCases are the mixed-200 archives whose units (entries or
// folders) can decode in parallel, and rar5-solid, one unit whose decoder
// uses the workers itself. 7z-lzma2-mt is non-solid (-ms=off: one folder
// per file) and zip-bzip2 is made by 7zz; scripts/native-compare.sh makes
// the same files with the same commands.
var parallelBenchCases = []benchCase{
	{name: "rar5", file: "mixed-rar5.rar", tool: "rar", args: rar5Args()},
	// One solid run: one unit, whose RAR5 decoder pipelines on the workers.
	{name: "rar5-solid", file: "mixed-rar5-solid.rar", tool: "rar", args: rar5Args("-s")},
	{name: "zip-deflate", file: "mixed-zip-deflate.zip", tool: "7zz", args: []string{"a", "-tzip", "-mx5", "-mmt1", "{out}"}},
	{name: "7z-lzma2-mt", file: "mixed-7z-lzma2-mt.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=lzma2", "-mx5", "-mmt2", "-md8m", "-ms=off", "{out}"}},
	{name: "zip-bzip2", file: "mixed-zip-bzip2.zip", tool: "7zz", args: []string{"a", "-tzip", "-mm=BZip2", "-mx5", "{out}"}},
}

// testArchive decodes and verifies every entry of data with Archive.Verify
// on the given workers (what `unarc t -j N` runs).
func testArchive(b *testing.B, data []byte, workers int) {
	a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), unarc.WithWorkers(workers))
	if err != nil {
		b.Fatal(err)
	}
	var total atomic.Int64
	err = a.VerifyFunc(context.Background(), func(r *unarc.VerifyResult) error { return r.Err },
		unarc.VerifyProgress(func(_ *unarc.Entry, n int) { total.Add(int64(n)) }))
	if err != nil {
		b.Fatal(err)
	}
	a.Close()
	if total.Load() != testutil.MixedTotalSize {
		b.Fatalf("tested %d bytes, want %d", total.Load(), testutil.MixedTotalSize)
	}
}

// BenchmarkExtractParallel measures Archive.Verify (decode and verify every
// entry, as unarc t) of the mixed-200 workload on 1 and 2 workers:
// BenchmarkExtractParallel/<case>/<workers>. The four files are four
// units, so 2 workers on 2 cores should take about half the time.
func BenchmarkExtractParallel(b *testing.B) {
	for _, c := range parallelBenchCases {
		b.Run(c.name, func(b *testing.B) {
			data := loadBench(b, c)
			for _, w := range []int{1, 2} {
				b.Run(fmt.Sprint(w), func(b *testing.B) {
					testArchive(b, data, w) // warm the pools
					b.SetBytes(testutil.MixedTotalSize)
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						testArchive(b, data, w)
					}
				})
			}
		})
	}
}
