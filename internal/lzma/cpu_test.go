package lzma

import (
	"syscall"
	"testing"
	"time"
)

// cpuTimer reports the process CPU time per operation next to the wall
// time: on a shared, overloaded machine it is the steadier figure for
// comparing two decoders run side by side.
type cpuTimer struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuTimer { return cpuTimer{cpuNow()} }

// report adds cpu-ms/op and cpu-MB/s metrics for b.N operations of size
// bytes each.
func (c cpuTimer) report(b *testing.B, size int64) {
	d := cpuNow() - c.start
	b.ReportMetric(float64(d.Milliseconds())/float64(b.N), "cpu-ms/op")
	if d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}
