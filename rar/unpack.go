package rar

import (
	"io"
)

// unpacker is the API every RAR LZ decoder package offers (unpack50,
// unpack29, …): Reset starts an entry of unpackedSize bytes (-1 unknown)
// from src; solid continues the previous entry's window and tables.
type unpacker interface {
	Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error
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
	case 29, 36:
		return fam29
	case 20, 26:
		return fam20
	case 15:
		return fam15
	}
	return 0
}

// unpackers holds the constructors of the decoders linked in; a family
// without one is reported as errs.ErrUnsupported.
var unpackers = map[int]func(algo int) unpacker{}
