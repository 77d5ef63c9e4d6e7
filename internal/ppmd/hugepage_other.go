//go:build !linux

package ppmd

// adviseHuge is a no-op where transparent huge pages are not advised.
func adviseHuge([]byte) {}
