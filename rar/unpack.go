package rar

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/unpack15"
	"github.com/go-unarc/unarc/rar/internal/unpack20"
	"github.com/go-unarc/unarc/rar/internal/unpack29"
	"github.com/go-unarc/unarc/rar/internal/unpack50"
)

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
}

// Algorithm families: one decoder type each.
const (
	fam15 = 15
	fam20 = 20
	fam29 = 29
	fam50 = 50
)

// family maps a header's algorithm version to its decoder family, or 0.
func family(algo int) int {
	switch algo {
	case 50, 70:
		return fam50
	case 29:
		// 36 was a RAR 3.6 alpha's number for the same algorithm; unrar
		// 5 and later refuse it ("unknown method", any version above 29
		// in a RAR 1.5–4 header), and so do we.
		return fam29
	case 20, 26:
		return fam20
	case 13, 14, 15:
		// unrar unpacks every version up to 15 with the 1.5 decoder.
		return fam15
	}
	return 0
}

// unpackers holds the constructors of the decoders linked in; a family
// without one is reported as errs.ErrUnsupported. They take a closed
// decoder kept from an earlier entry when there is one.
var unpackers = map[int]func(maxMem int64) unpacker{
	fam50: func(int64) unpacker { return dec50{idle50.Get()} },
	fam29: func(maxMem int64) unpacker {
		d := idle29.Get()
		d.MaxMemory = maxMem // bounds the PPMd model a block may declare
		return dec29{d}
	},
	fam20: func(int64) unpacker { return dec20{idle20.Get()} },
	fam15: func(int64) unpacker { return dec15{idle15.Get()} },
}

// Idle decoders: closed (their windows are back in internal/pool), their
// tables of tens of KiB kept for the next entry. pool.Of keeps a few on
// a list the GC does not empty; a sync.Pool dropped them at every second
// GC, and a long extraction spans several, so a rar5 extraction
// re-allocated its decoder (and the bit reader's buffers) now and then.
var (
	idle50 = pool.Of[unpack50.Decoder]{New: unpack50.NewDecoder}
	idle29 = pool.Of[unpack29.Decoder]{New: unpack29.NewDecoder}
	idle20 = pool.Of[unpack20.Decoder]{New: unpack20.NewDecoder}
	idle15 = pool.Of[unpack15.Decoder]{New: unpack15.NewDecoder}
)

type dec50 struct{ *unpack50.Decoder }

func (d dec50) reset(src io.Reader, algo int, dict, size int64, solid bool) error {
	v := 0
	if algo == 70 {
		v = 1
	}
	return d.ResetVersion(src, v, dict, size, solid)
}

type dec29 struct{ *unpack29.Decoder }

func (d dec29) reset(src io.Reader, algo int, dict, size int64, solid bool) error {
	return d.Reset(src, dict, size, solid)
}

type dec20 struct{ *unpack20.Decoder }

func (d dec20) reset(src io.Reader, algo int, dict, size int64, solid bool) error {
	return d.Reset(src, dict, size, solid)
}

type dec15 struct{ *unpack15.Decoder }

func (d dec15) reset(src io.Reader, algo int, dict, size int64, solid bool) error {
	return d.Reset(src, dict, size, solid)
}
