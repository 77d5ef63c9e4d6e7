//go:build !unix

package main

import "io/fs"

// linkID: no hard links are recognised here; every name is a file.
func linkID(fs.FileInfo) (id [2]uint64, ok bool) { return id, false }
