//go:build linux

package ppmd

import (
	"syscall"
	"unsafe"
)

const (
	hugePage     = 2 << 20
	madvHugepage = 14 // MADV_HUGEPAGE; the syscall package does not name it
)

// adviseHuge asks the kernel to back the 2 MiB-aligned interior of a
// fresh arena with transparent huge pages (the system's THP mode is
// usually "madvise", so anonymous memory gets them only when asked).
// The model reads its arena at random: with 4 KiB pages a 16 MiB arena
// spans 4096 pages, more than the data TLB holds, and nearly every
// context or state load also pays a page walk; 7-Zip's allocator asks
// for huge pages too. Advice only: an error or a kernel without THP
// changes nothing but speed.
func adviseHuge(b []byte) {
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
