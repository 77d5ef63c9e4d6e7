//go:build !linux

package lzma

func adviseHuge(b []byte) {}
