package rar

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack50"
)

// The RAR 5.0 family (unpack50): algorithm 50, and 70 for RAR 7's larger
// dictionaries, decoded with a pipeline of workers when the memory
// allows it.

// Idle decoders: closed (their windows are back in internal/pool), their
// tables of tens of KiB kept for the next entry. pool.Of keeps a few on
// a list the GC does not empty; a sync.Pool dropped them at every second
// GC, and a long extraction spans several, so a rar5 extraction
// re-allocated its decoder (and the bit reader's buffers) now and then.
// Every family keeps its idle decoders so.
var idle50 = pool.Of[unpack50.Decoder]{New: unpack50.NewDecoder}

type dec50 struct{ *unpack50.Decoder }

func new50(int64) unpacker { return dec50{idle50.Get()} }

// memory50 is the window and what the pipeline's jobs hold.
func memory50(dict int64, workers int) int64 { return dict + unpack50.PipelineMemory(workers) }

// version50 is unpack50's version of a header algorithm: 1 for RAR 7.
func version50(algo int) int {
	if algo == 70 {
		return 1
	}
	return 0
}

func (d dec50) reset(src io.Reader, algo int, dict, size int64, solid bool) error {
	return d.ResetVersion(src, version50(algo), dict, size, solid)
}

func (d dec50) resetAt(src io.Reader, algo int, dict, size int64, state []byte) error {
	return d.ResetAt(src, version50(algo), dict, size, state)
}

func (d dec50) onCheckpoint(next int64, fn func(cpState) int64) {
	d.OnCheckpoint(next, func(x *unpack50.Decoder) int64 { return fn(x) })
}

func (d dec50) release()         { d.Close(); idle50.Put(d.Decoder) }
func (d dec50) family() *family  { return familyOf(50) }
func (d dec50) setWorkers(n int) { d.SetWorkers(n) }

// cpStateMax50: the window kept (at most the window, twice the
// dictionary, or the entry's run so far), the code lengths and a header.
func cpStateMax50(f *file, _, _ int64, _ []byte, _ int64) int64 { return 2*f.dict + 64<<10 }
