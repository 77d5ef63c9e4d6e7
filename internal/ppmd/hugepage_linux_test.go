//go:build linux

package ppmd

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestArenaHugePageAdvice checks that a model's arena is advised for
// transparent huge pages: the kernel marks the advised mapping "hg" in
// /proc/self/smaps whether or not it could hand out huge pages, so the
// test does not depend on free memory.
func TestArenaHugePageAdvice(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
	m := NewModel()
	if err := m.Init(6, 16<<20); err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	p := uintptr(unsafe.Pointer(unsafe.SliceData(m.mem)))
	mid := (p + uintptr(len(m.mem))/2) &^ (hugePage - 1)
	flags, err := vmFlags(mid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("arena mapping at %#x has VmFlags %q, want hg (MADV_HUGEPAGE)", mid, flags)
	}
}

// vmFlags returns the VmFlags line of the mapping holding addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(line[:strings.IndexByte(line, ' ')], "-") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}
