package rar

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
)

// lzDecoder is the method set the RAR 1.5, 2.0 and 2.9 decoders share
// (unpack15, unpack20, unpack29): one generic adapter, lz, serves the
// three families; RAR5's decoder, with its version and pipeline, has one
// of its own (family50.go).
type lzDecoder[D any] interface {
	*D
	cpState
	Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error
	ResetAt(src io.Reader, dictSize, unpackedSize int64, state []byte) error
	OnCheckpoint(next int64, fn func(*D) int64)
	Read(p []byte) (int, error)
	WriteTo(w io.Writer) (int64, error)
	Close() error
}

// home is where a family's idle decoders are kept and which row it is
// (an algorithm version of the row): a zero-size type per family, so lz
// stays one pointer and an unpacker interface holds it without an
// allocation.
type home[D any] interface {
	home() (idle *pool.Of[D], algo int)
}

// lz adapts decoder d of the family H to unpacker and cpDecoder.
type lz[D any, P lzDecoder[D], H home[D]] struct{ d P }

// newLZ takes an idle decoder of family H (or a new one): the
// newDecoder of a family with nothing more to set.
func newLZ[D any, P lzDecoder[D], H home[D]](int64) unpacker {
	var h H
	idle, _ := h.home()
	return lz[D, P, H]{P(idle.Get())}
}

func (x lz[D, P, H]) reset(src io.Reader, _ int, dict, size int64, solid bool) error {
	return x.d.Reset(src, dict, size, solid)
}

func (x lz[D, P, H]) resetAt(src io.Reader, _ int, dict, size int64, state []byte) error {
	return x.d.ResetAt(src, dict, size, state)
}

func (x lz[D, P, H]) onCheckpoint(next int64, fn func(cpState) int64) {
	x.d.OnCheckpoint(next, func(d *D) int64 { return fn(P(d)) })
}

func (x lz[D, P, H]) Read(p []byte) (int, error)         { return x.d.Read(p) }
func (x lz[D, P, H]) WriteTo(w io.Writer) (int64, error) { return x.d.WriteTo(w) }
func (x lz[D, P, H]) Close() error                       { return x.d.Close() }
func (x lz[D, P, H]) EntryOffset() int64                 { return x.d.EntryOffset() }
func (x lz[D, P, H]) setWorkers(int)                     {} // one goroutine

func (x lz[D, P, H]) release() {
	var h H
	idle, _ := h.home()
	x.d.Close()
	idle.Put((*D)(x.d))
}

func (x lz[D, P, H]) family() *family {
	var h H
	_, algo := h.home()
	return familyOf(algo)
}

// cpStateMaxLZ is the checkpoint bound of the RAR 1.5 and 2.0 families:
// the cipher state an encrypted entry's checkpoints start with, the
// adaptive tables (overhead) and the history (at most the window of the
// largest dictionary in the solid run so far, and at most the run's
// output so far).
func cpStateMaxLZ(overhead int64, window func(dict int64) int64) func(*file, int64, int64, []byte, int64) int64 {
	return func(f *file, runDict, produced int64, _ []byte, _ int64) int64 {
		return int64(oldCipher(f)) + overhead + min(window(runDict), produced)
	}
}
