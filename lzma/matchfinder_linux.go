package lzma

import "syscall"

// adviseHuge asks the kernel to back a large table with transparent huge
// pages (where THP is in "madvise" mode): the match finder reads its
// hash and tree arrays at random, and with 4 KiB pages nearly every
// access misses the TLB. Failure is harmless and ignored.
func adviseHuge(b []byte) {
	const madvHugepage = 14 // MADV_HUGEPAGE
	if len(b) >= 4<<20 {
		_ = syscall.Madvise(b, madvHugepage)
	}
}
