//go:build linux

package pool

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

const (
	hugePage     = 2 << 20
	madvHugepage = 14 // MADV_HUGEPAGE; the syscall package does not name it
)

// AdviseHuge asks the kernel to back the 2 MiB-aligned interior of b with
// transparent huge pages, when b is at least 4 MiB (the system's THP mode
// is usually "madvise": anonymous memory gets them only when asked). For
// big tables and windows read at random — a PPMd arena, a match finder's
// hash and tree, an LZMA window — with 4 KiB pages nearly every access
// also misses the TLB; 7-Zip's allocator asks for huge pages too. Call it
// once on a fresh buffer (the advice stays with the memory as it is
// pooled). Advice only: an error or a kernel without THP changes nothing
// but speed.
func AdviseHuge(b []byte) {
	if len(b) < 2*hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], madvHugepage)
}

// HugeAdvised reports whether the middle of b lies in memory advised for
// huge pages: the kernel marks such a mapping "hg" in /proc/self/smaps
// whether or not it could hand out huge pages, so the answer does not
// depend on free memory. For tests; false when smaps cannot be read.
func HugeAdvised(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b))/2
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return false
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && !strings.HasSuffix(f[0], ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uintptr(l) <= addr && addr < uintptr(h)
				continue
			}
		}
		if in && f[0] == "VmFlags:" {
			return slices.Contains(f[1:], "hg")
		}
	}
	return false
}
