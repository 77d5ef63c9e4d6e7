package rar

import (
	"io"
	"strconv"

	"github.com/go-unarc/unarc/rar/internal/unpack15"
	"github.com/go-unarc/unarc/rar/internal/unpack20"
)

// The RAR decoder families: one decoder type each, for the algorithm
// versions a header may name. This table is the only place that knows
// them. Adding a family is one file (family<N>.go: where its idle
// decoders are kept, its constructor, and what its row needs that no
// other family has; a decoder with the method set of the RAR 1.5 to 2.9
// ones takes the lz adapter, adapter.go) and one row here.
var families = []*family{
	{kind: "rar5", algos: []int{50, 70}, newDecoder: new50, memory: memory50,
		cpCiphers: []int{cryptRAR5}, cpStateMax: cpStateMax50},
	// 36 was a RAR 3.6 alpha's number for the 2.9 algorithm; unrar 5 and
	// later refuse it ("unknown method", any version above 29 in a RAR
	// 1.5–4 header), and so do we.
	{kind: "rar29", algos: []int{29}, newDecoder: new29, memory: memoryWindow,
		cpCiphers: []int{cryptRAR3}, cpStateMax: cpStateMax29},
	{kind: "rar20", algos: []int{20, 26}, newDecoder: newLZ[unpack20.Decoder, *unpack20.Decoder, home20], memory: memoryWindow,
		cpCiphers:  []int{cryptRAR15, cryptRAR20},
		cpStateMax: cpStateMaxLZ(unpack20.CheckpointOverhead, unpack20.WindowFor)},
	// unrar unpacks every version up to 15 with the 1.5 decoder.
	{kind: "rar15", algos: []int{13, 14, 15}, newDecoder: newLZ[unpack15.Decoder, *unpack15.Decoder, home15], memory: memoryWindow,
		cpCiphers:  []int{cryptRAR15, cryptRAR20},
		cpStateMax: cpStateMaxLZ(unpack15.CheckpointOverhead, unpack15.WindowFor)},
}

// family is one row of families.
type family struct {
	id    int    // its index in families (Archive.spare)
	kind  string // the Kind of its checkpoints, "rar5", "rar29" …
	algos []int  // the header algorithm versions it decodes

	// newDecoder returns a decoder, closed, taken from the family's idle
	// ones when there is one; maxMem bounds what a block may declare
	// (the PPMd model of RAR 2.9).
	newDecoder func(maxMem int64) unpacker
	// memory estimates what a decoder holds for a window of dict bytes
	// decoding with workers goroutines, beyond its tables.
	memory func(dict int64, workers int) int64

	// Checkpoints (seekcp.go): every family's decoder implements
	// cpDecoder (resume from a checkpoint). cpCiphers are the encryption
	// schemes an entry may have and still take them (besides none);
	// cpStateMax bounds the state of a restored one (seek_persist.go):
	// the entry f, the largest dictionary of its solid run so far and
	// what the run produced before the checkpoint.
	cpCiphers  []int
	cpStateMax func(f *file, runDict, produced int64, state []byte, memMax int64) int64
}

// byAlgo maps a header's algorithm version to its family.
var byAlgo = map[int]*family{}

func init() {
	for i, fam := range families {
		fam.id = i
		for _, v := range fam.algos {
			if byAlgo[v] != nil {
				panic("rar: two decoder families for algorithm " + strconv.Itoa(v))
			}
			byAlgo[v] = fam
		}
	}
}

// familyOf is the family of a header's algorithm version, or nil (no
// decoder: errs.ErrUnsupported, unknownAlgo).
func familyOf(algo int) *family { return byAlgo[algo] }

// checkpoints reports whether an entry encrypted with crypt (cryptNone:
// plain) takes checkpoints with this family's decoder.
func (fam *family) checkpoints(crypt int) bool {
	if crypt == cryptNone {
		return true
	}
	for _, c := range fam.cpCiphers {
		if c == crypt {
			return true
		}
	}
	return false
}

// memoryWindow is the memory estimate of a decoder whose only sizeable
// buffer is its window (RAR 1.5 to 2.9: one goroutine).
func memoryWindow(dict int64, _ int) int64 { return dict }

// unpacker is what the container needs from a RAR LZ decoder (unpack50,
// unpack29, …): reset starts an entry of unpackedSize bytes (-1 unknown)
// from src with the header's algorithm version and dictionary; solid
// continues the previous entry's window and tables. The decoders size
// their windows from the dictionary and the sizes they are told.
type unpacker interface {
	reset(src io.Reader, algo int, dictSize, unpackedSize int64, solid bool) error
	Read(p []byte) (int, error)
	WriteTo(w io.Writer) (int64, error)
	Close() error
	// release closes the decoder, which must not be used again, and
	// keeps it (its tables of tens of KiB) for the next entry or archive.
	release()
	// family is the row the decoder belongs to.
	family() *family
	// setWorkers says how many goroutines the next reset may decode
	// with; a decoder without a pipeline ignores it.
	setWorkers(n int)
}

// setWorkers tells decoder d for an entry with dictionary dict how many
// goroutines it may use: n, when what they hold fits Limits.MaxMemory
// beside the window, else one.
func setWorkers(d unpacker, n int, dict, memMax int64) {
	w := min(dict, memMax)
	if n > 1 && d.family().memory(w, n) > memMax {
		n = 1
	}
	d.setWorkers(n)
}
