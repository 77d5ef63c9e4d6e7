package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestTestKeepsNoResults: t streams Verify's results (VerifyFunc), so a
// tarball of 262,144 empty entries tests in little memory and under a
// header-memory limit that holds a few thousand (issue 30: the results
// and their headers were all kept, 428-938 MiB; here the live heap
// grew by 200 MiB and more before VerifyFunc).
//
// The heap is sampled in this process (not a child's peak RSS: a child
// started by os/exec is charged the parent's RSS at exec), from a
// collected baseline; the test is not parallel, so no other test runs,
// and GOGC is low, so garbage cannot grow the heap by a share of what
// earlier tests left live.
func TestTestKeepsNoResults(t *testing.T) {
	p := testdata(t, "tar/headers.tar.xz")
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var top uint64
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			top = max(top, ms.HeapAlloc)
			select {
			case <-stop:
				peak <- top
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	code, _, errs := runCLI("t", "-max-ratio", "100000", "-max-header-memory", "4M", p)
	close(stop)
	if code != 0 {
		t.Errorf("unarc t %s: exit %d: %s", p, code, errs)
	}
	if top := <-peak; top > base && top-base > 96<<20 {
		t.Errorf("unarc t %s: the heap grew by %d MiB", p, (top-base)>>20)
	}
}
