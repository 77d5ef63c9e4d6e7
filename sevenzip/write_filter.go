package sevenzip

import (
	"encoding/binary"

	"github.com/go-unarc/unarc/internal/bcj"
)

// sniffSize is how much of a file the automatic filter looks at: enough
// for the PE header pointer and header of ordinary executables.
const sniffSize = 4096

// sniffFilter names the filter for an executable's machine, from its
// first bytes (PE, ELF, Mach-O), or FilterNone.
func sniffFilter(b []byte) Filter {
	switch {
	case len(b) >= 0x40 && b[0] == 'M' && b[1] == 'Z':
		off := int(binary.LittleEndian.Uint32(b[0x3C:]))
		if off < 0 || off > len(b)-6 || string(b[off:off+4]) != "PE\x00\x00" {
			return FilterNone
		}
		switch binary.LittleEndian.Uint16(b[off+4:]) {
		case 0x014C, 0x8664:
			return FilterX86
		case 0xAA64:
			return FilterARM64
		case 0x01C0:
			return FilterARM
		case 0x01C2, 0x01C4:
			return FilterARMT
		}
	case len(b) >= 20 && string(b[:4]) == "\x7fELF":
		var m uint16
		switch b[5] {
		case 1:
			m = binary.LittleEndian.Uint16(b[18:])
		case 2:
			m = binary.BigEndian.Uint16(b[18:])
		default:
			return FilterNone
		}
		switch m {
		case 3, 62:
			return FilterX86
		case 40:
			return FilterARM
		case 183:
			return FilterARM64
		case 20:
			if b[5] == 2 {
				return FilterPPC
			}
		case 2, 18, 43:
			return FilterSPARC
		}
	case len(b) >= 8:
		var cpu uint32
		switch binary.BigEndian.Uint32(b) {
		case 0xCEFAEDFE, 0xCFFAEDFE: // little-endian Mach-O
			cpu = binary.LittleEndian.Uint32(b[4:])
		case 0xFEEDFACE, 0xFEEDFACF:
			cpu = binary.BigEndian.Uint32(b[4:])
			if cpu == 18 || cpu == 0x01000012 {
				return FilterPPC
			}
			return FilterNone
		default:
			return FilterNone
		}
		switch cpu {
		case 7, 0x01000007:
			return FilterX86
		case 12:
			return FilterARM
		case 0x0100000C:
			return FilterARM64
		}
	}
	return FilterNone
}

// filterSpec is one folder's filter: its bcj kind, 7z method ID and
// property byte.
func filterSpec(f Filter, dist int) (kind bcj.Kind, method uint64) {
	switch f {
	case FilterX86:
		return bcj.X86, mBCJ
	case FilterARM:
		return bcj.ARM, mARM2
	case FilterARMT:
		return bcj.ARMT, mARMT2
	case FilterARM64:
		return bcj.ARM64, mARM64
	case FilterPPC:
		return bcj.PPC, mPPC2
	case FilterSPARC:
		return bcj.SPARC, mSPARC2
	case FilterDelta:
		return bcj.Delta, mDelta
	case FilterSwap2:
		return bcj.Swap2, mSwap2
	case FilterSwap4:
		return bcj.Swap4, mSwap4
	}
	return 0, 0
}
