package bzip2

import "encoding/binary"

// bzip2's CRC is CRC-32 with the IEEE polynomial 0x04C11DB7 fed MSB-first
// (not bit-reflected as in hash/crc32), with ^0 before and after. crcTab
// holds slicing-by-8 tables: crcTab[k][b] is the CRC register change of
// byte b followed by k zero bytes.
var crcTab = func() (t [8][256]uint32) {
	for i := range 256 {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	for k := 1; k < 8; k++ {
		for i := range 256 {
			c := t[k-1][i]
			t[k][i] = c<<8 ^ t[0][c>>24]
		}
	}
	return t
}()

// crcUpdate adds p to the CRC register c (not inverted: start from ^0 and
// invert the result).
func crcUpdate(c uint32, p []byte) uint32 {
	t := &crcTab
	for len(p) >= 8 {
		c ^= binary.BigEndian.Uint32(p)
		c = t[7][c>>24] ^ t[6][c>>16&0xFF] ^ t[5][c>>8&0xFF] ^ t[4][c&0xFF] ^
			t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]]
		p = p[8:]
	}
	for _, b := range p {
		c = c<<8 ^ t[0][byte(c>>24)^b]
	}
	return c
}
