// Package zipcrypto holds the ciphers of ZIP encryption: the traditional
// PKWARE stream cipher ("ZipCrypto", APPNOTE 6.1), WinZip AES (AE-1 and
// AE-2: PBKDF2-HMAC-SHA1 key derivation and AES in CTR mode with a
// little-endian counter), and the key handling of PKWARE strong
// encryption (APPNOTE 7.2) with a password. The framing (which bytes are
// headers, where the data ends) is the zip package's; this package only
// transforms bytes and checks keys.
package zipcrypto

import "hash/crc32"

// HeaderLen is the length of the ZipCrypto encryption header that
// precedes the data (APPNOTE 6.1.6).
const HeaderLen = 12

var crcTab = crc32.IEEETable

// Keys is the state of the traditional PKWARE cipher. The zero value is
// not usable; call Init.
type Keys struct {
	k0, k1, k2 uint32
}

// Init sets the keys from the password (APPNOTE 6.1.5).
func (k *Keys) Init(password string) {
	k.k0, k.k1, k.k2 = 0x12345678, 0x23456789, 0x34567890
	for i := 0; i < len(password); i++ {
		k.update(password[i])
	}
}

func (k *Keys) update(b byte) {
	k.k0 = crcTab[byte(k.k0)^b] ^ k.k0>>8
	k.k1 = (k.k1+k.k0&0xff)*134775813 + 1
	k.k2 = crcTab[byte(k.k2)^byte(k.k1>>24)] ^ k.k2>>8
}

// Decrypt deciphers b in place.
func (k *Keys) Decrypt(b []byte) {
	k0, k1, k2 := k.k0, k.k1, k.k2
	for i, c := range b {
		t := k2 | 2
		c ^= byte(t * (t ^ 1) >> 8)
		b[i] = c
		k0 = crcTab[byte(k0)^c] ^ k0>>8
		k1 = (k1+k0&0xff)*134775813 + 1
		k2 = crcTab[byte(k2)^byte(k1>>24)] ^ k2>>8
	}
	k.k0, k.k1, k.k2 = k0, k1, k2
}

// Encrypt enciphers b in place (tests and writers).
func (k *Keys) Encrypt(b []byte) {
	for i, c := range b {
		t := k.k2 | 2
		b[i] = c ^ byte(t*(t^1)>>8)
		k.update(c)
	}
}

// CheckHeader deciphers the 12-byte encryption header h in place and
// reports whether its last byte is check: the high byte of the CRC-32,
// or of the DOS modification time for entries with a data descriptor
// (APPNOTE 6.1.6; Info-ZIP and 7-Zip). One wrong password in 256 passes.
func (k *Keys) CheckHeader(h *[HeaderLen]byte, check byte) bool {
	k.Decrypt(h[:])
	return h[HeaderLen-1] == check
}
