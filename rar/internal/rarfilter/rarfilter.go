// Package rarfilter holds the RAR filters that RAR 3.x (unpack29, as the
// standard RarVM programs) and RAR 5 (unpack50) share: x86 CALL/JMP
// address translation (E8, E8E9) and byte-wise delta. The formats differ
// only in how the E8 offset wraps, which is a parameter.
//
// internal/bcj's x86 filter is a different transform (7-Zip BCJ, with its
// own state across calls); RAR's E8 works per block modulo a 16 MiB
// "file".
package rarfilter

import "encoding/binary"

// fileSize is the span of the absolute addresses E8 stores: 16 MiB.
const fileSize = 0x1000000

// Offset masks for E8E9: how the position of an operand wraps before it
// is compared with and subtracted from the stored address.
const (
	// V3Offsets: RAR 3.x (RarVM standard filter) uses the block offset
	// plus the position unwrapped, in 32 bits.
	V3Offsets = 0xffffffff
	// V5Offsets: RAR 5 takes the position modulo the 16 MiB file size.
	V5Offsets = fileSize - 1
)

// E8E9 undoes the x86 CALL (and, with e9, JMP) address transform in place:
// the 32-bit operand after each 0xE8 (0xE9) byte was stored as an absolute
// address within a 16 MiB file in place of the relative one. fileOffset is
// the block's position in the output; offMask is V3Offsets or V5Offsets.
// The last four bytes are never an opcode (their operand would run past the
// block).
func E8E9(b []byte, fileOffset uint32, e9 bool, offMask uint32) {
	cmp2 := byte(0xe8)
	if e9 {
		cmp2 = 0xe9
	}
	for i := 0; i+4 < len(b); {
		c := b[i]
		i++
		if c != 0xe8 && c != cmp2 {
			continue
		}
		off := (uint32(i) + fileOffset) & offMask
		addr := binary.LittleEndian.Uint32(b[i:])
		if addr&0x80000000 != 0 {
			if (addr+off)&0x80000000 == 0 {
				binary.LittleEndian.PutUint32(b[i:], addr+fileSize)
			}
		} else if (addr-fileSize)&0x80000000 != 0 {
			binary.LittleEndian.PutUint32(b[i:], addr-off)
		}
		i += 4
	}
}

// Delta undoes byte-wise delta coding: src holds the channels one after
// another, each as differences from its previous byte; dst gets them
// interleaved. len(src) must be at least len(dst).
func Delta(dst, src []byte, channels int) {
	s := 0
	for c := 0; c < channels; c++ {
		var prev byte
		for i := c; i < len(dst); i += channels {
			prev -= src[s]
			s++
			dst[i] = prev
		}
	}
}
