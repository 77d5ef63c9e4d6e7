package pool

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestHugeReusesAddressSpace: a buffer too large to keep, dropped and
// asked for again, reuses the dropped one's pages rather than reserving
// as much address space beside them: under an address-space limit
// (ulimit -v) that fits one such buffer and a half, three in a row
// succeed. Without the collection in Get the second one dies with
// "fatal error: out of memory" (it cannot be recovered, so the test
// runs in a child process).
func TestHugeReusesAddressSpace(t *testing.T) {
	const n = 1<<30 + 1<<20 // above maxShift: never pooled
	if os.Getenv("POOL_HUGE_CHILD") == "1" {
		st, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Skip(err)
		}
		var vm int64 // KiB of address space in use
		for _, l := range strings.Split(string(st), "\n") {
			if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
				vm, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			}
		}
		if vm == 0 {
			t.Skip("no VmSize in /proc/self/status")
		}
		lim := uint64(vm<<10 + n + n/2)
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Skip(err)
		}
		for range 3 {
			p := Get(n)
			(*p)[0], (*p)[n-1] = 1, 1
			Put(p)
		}
		return
	}
	if testing.Short() {
		t.Skip("allocates three buffers of 1 GiB in a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugeReusesAddressSpace$")
	cmd.Env = append(os.Environ(), "POOL_HUGE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
