package unarc

import "github.com/go-unarc/unarc/internal/pool"

// ReleaseMemory drops the large decoder buffers (windows and input buffers of 64 KiB and up)
// that the library keeps between extractions so the next archive needs
// no new allocation. Call it after a burst of work when the memory is
// better given back; smaller scratch lives in sync.Pools the garbage
// collector empties by itself.
func ReleaseMemory() { pool.Release() }
