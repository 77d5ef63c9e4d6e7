package deflate

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	kflate "github.com/klauspost/compress/flate"
)

// TestCPUTimeVsKlauspost compares our decoder with klauspost/compress on
// the BenchmarkDecode stream by thread CPU time (best of 12 alternating
// runs), which stays meaningful on a loaded machine where wall-clock
// benchmarks do not. Run with UNARC_AB=1.
func TestCPUTimeVsKlauspost(t *testing.T) {
	if os.Getenv("UNARC_AB") == "" {
		t.Skip("set UNARC_AB=1 to run")
	}
	stream, size := mixedStream(nil)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(1, &ru) // RUSAGE_THREAD
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	br := bytes.NewReader(stream)
	z := NewReader(br)
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
