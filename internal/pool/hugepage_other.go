//go:build !linux

package pool

// AdviseHuge is a no-op where transparent huge pages are not advised.
func AdviseHuge([]byte) {}

// HugeAdvised is false where huge pages are not advised.
func HugeAdvised([]byte) bool { return false }
