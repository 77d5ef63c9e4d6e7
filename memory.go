package unarc

import "github.com/go-unarc/unarc/internal/pool"

// ReleaseMemory drops the decoder buffers (windows, input buffers,
// tables) that the library keeps between extractions so the next archive
// needs no new allocation. Call it after a burst of work when the memory
// is better given back; what the bounded free lists do not hold lives in
// sync.Pools the garbage collector empties by itself.
func ReleaseMemory() { pool.Release() }
