package rarbits

import "encoding/binary"

// The length and short-distance slots RAR 2.0 and 2.9 share (unrar
// LDecode/LBits, SDDecode/SDBits): a slot's base plus that many extra bits.
var (
	LenBase   = [28]uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224}
	LenBits   = [28]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5}
	ShortBase = [8]uint8{0, 4, 8, 16, 32, 64, 128, 192}
	ShortBits = [8]uint8{2, 2, 3, 4, 5, 6, 6, 6}
)

// CopyMatch copies length bytes from dist back to pos in the ring win.
func CopyMatch(win []byte, mask int64, pos int64, length, dist int) {
	dst := int(pos & mask)
	src := int((pos - int64(dist)) & mask)
	if dst+length <= len(win) && src+length <= len(win) {
		if dist >= 8 {
			// Eight bytes at a time: with dist >= 8 every load reads
			// bytes that are already final. Short matches dominate, and
			// this beats a memmove call for them.
			i := 0
			for ; i+8 <= length; i += 8 {
				binary.LittleEndian.PutUint64(win[dst+i:], binary.LittleEndian.Uint64(win[src+i:]))
			}
			for ; i < length; i++ {
				win[dst+i] = win[src+i]
			}
			return
		}
		if dist >= length {
			// The source may lie after dst (it wrapped): plain copy.
			copy(win[dst:dst+length], win[src:src+length])
			return
		}
		// Overlapping (dist < length) implies src < dst here.
		w := win[src : dst+length]
		for i := dist; i < len(w); i++ {
			w[i] = w[i-dist]
		}
		return
	}
	m := int(mask)
	for i := 0; i < length; i++ {
		win[(dst+i)&m] = win[(src+i)&m]
	}
}
