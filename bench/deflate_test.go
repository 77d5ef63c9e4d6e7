package bench

import (
	"bytes"
	"compress/flate"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	kflate "github.com/klauspost/compress/flate"

	"github.com/go-unarc/unarc/internal/deflate"
	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkDeflate decodes one stream with unarc's deflate package,
// klauspost/compress/flate and compress/flate, each reused across
// iterations and read with io.Copy from a *bytes.Reader.
func BenchmarkDeflate(b *testing.B) {
	stream, size := testutil.MixedDeflate()
	br := bytes.NewReader(stream)
	z := deflate.NewReader(br)
	defer z.Close()
	k := kflate.NewReader(br)
	s := flate.NewReader(br)
	for _, c := range []struct {
		name  string
		reset func()
		r     io.Reader
	}{
		{"unarc", func() { z.Reset(br, false) }, z},
		{"klauspost", func() { k.(kflate.Resetter).Reset(br, nil) }, k},
		{"stdlib", func() { s.(flate.Resetter).Reset(br, nil) }, s},
	} {
		b.Run(c.name, func(b *testing.B) {
			run(b, size, func(b *testing.B) int64 {
				br.Reset(stream)
				c.reset()
				n, err := io.Copy(io.Discard, c.r)
				if err != nil {
					b.Fatal(err)
				}
				return n
			})
		})
	}
}

// TestDeflateCPUTime compares unarc's decoder with klauspost/compress on
// the BenchmarkDeflate stream by thread CPU time (best of 12 alternating
// runs), which stays meaningful on a loaded machine where wall-clock
// benchmarks do not. Run with UNARC_AB=1.
func TestDeflateCPUTime(t *testing.T) {
	if os.Getenv("UNARC_AB") == "" {
		t.Skip("set UNARC_AB=1 to run")
	}
	stream, size := testutil.MixedDeflate()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(1, &ru) // RUSAGE_THREAD (Linux)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	br := bytes.NewReader(stream)
	z := deflate.NewReader(br)
	k := kflate.NewReader(br)
	var best [2]time.Duration
	for i := range 12 {
		for j := range 2 {
			br.Reset(stream)
			start := cpu()
			var n int64
			var err error
			if j == 0 {
				z.Reset(br, false)
				n, err = io.Copy(io.Discard, z)
			} else {
				k.(kflate.Resetter).Reset(br, nil)
				n, err = io.Copy(io.Discard, k)
			}
			d := cpu() - start
			if err != nil || n != size {
				t.Fatal(j, n, err)
			}
			if i == 0 || d < best[j] {
				best[j] = d
			}
		}
	}
	mbs := func(d time.Duration) float64 { return float64(size) / d.Seconds() / 1e6 }
	t.Logf("CPU time: unarc %.0f MB/s, klauspost %.0f MB/s, unarc/klauspost speed %.2fx",
		mbs(best[0]), mbs(best[1]), best[1].Seconds()/best[0].Seconds())
}
