package unpack50

import "github.com/go-unarc/unarc/internal/errs"

// Compression information field of a RAR 5 file header (technote, file
// header): bits 0-5 algorithm version, bit 6 solid, bits 7-9 method,
// bits 10-14 dictionary size N (128 KiB << N; only bits 10-13 in version 0),
// version 1 adds bits 15-19, a dictionary fraction in 1/32 steps, and bit
// 20, "RAR 5 compatible": written by RAR 7 but decodable as version 0.
const (
	ciSolid      = 0x40
	ciRar5Compat = 0x100000
)

// CompInfo decodes the compression information field: the algorithm
// version to pass to ResetVersion, the method (0 = stored, 1-5),
// the solid flag and the dictionary size in bytes. Versions other than
// 0 and 1, and dictionaries above 64 GiB, are errs.ErrUnsupported.
func CompInfo(ci uint64) (version, method int, solid bool, dictSize int64, err error) {
	version = int(ci & 0x3f)
	method = int(ci>>7) & 7
	solid = ci&ciSolid != 0
	switch version {
	case 0:
		dictSize = 0x20000 << ((ci >> 10) & 0x0f)
	case 1:
		dictSize = 0x20000 << ((ci >> 10) & 0x1f)
		dictSize += dictSize / 32 * int64((ci>>15)&0x1f)
		if ci&ciRar5Compat != 0 {
			version = 0
		}
	default:
		return version, method, solid, 0, errs.Unsupported("rar5 compression algorithm version %d", version)
	}
	if dictSize > maxDict {
		return version, method, solid, dictSize, errs.Unsupported("rar5 dictionary of %d bytes", dictSize)
	}
	return version, method, solid, dictSize, nil
}
