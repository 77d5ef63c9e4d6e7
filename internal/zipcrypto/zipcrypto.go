// Package zipcrypto holds the ciphers of ZIP encryption: the traditional
// PKWARE stream cipher ("ZipCrypto", APPNOTE 6.1), WinZip AES (AE-1 and
// AE-2: PBKDF2-HMAC-SHA1 key derivation and AES in CTR mode with a
// little-endian counter), and the key handling of PKWARE strong
// encryption (APPNOTE 7.2) with a password. The framing (which bytes are
// headers, where the data ends) is the zip package's; this package only
// transforms bytes and checks keys.
package zipcrypto

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"hash/crc32"
)

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

// StateLen is the size of a sealed key state (SealState).
const StateLen = 12

// keyMul is the multiplier of key 1's update and keyMulInv its inverse
// modulo 2^32 (Rewind).
const keyMul = 134775813

var (
	keyMulInv = func() uint32 {
		inv := uint32(keyMul) // Newton: each step doubles the correct low bits
		for range 5 {
			inv *= 2 - keyMul*inv
		}
		return inv
	}()
	// crcTop maps the top byte of a CRC-32 table entry to its index: the
	// 256 top bytes are distinct, which makes one CRC step invertible.
	crcTop = func() (t [256]byte) {
		for i := range 256 {
			t[crcTab[i]>>24] = byte(i)
		}
		return t
	}()
)

// crcBack undoes crc = crcTab[byte(prev)^b] ^ prev>>8.
func crcBack(crc uint32, b byte) uint32 {
	i := crcTop[crc>>24]
	return (crc^crcTab[i])<<8 | uint32(i^b)
}

// Rewind steps the keys back over ct, the ciphertext they deciphered
// last (in order), to what they were before its first byte. The cipher
// is invertible given the ciphertext: key 2 before a byte follows from
// keys 1 and 2 after it, the key stream byte from key 2, the plaintext
// from that, and keys 0 and 1 from it. A checkpoint uses it to find the
// keys at the byte a decoder resumes at, behind what it read ahead.
func (k *Keys) Rewind(ct []byte) {
	k0, k1, k2 := k.k0, k.k1, k.k2
	for j := len(ct) - 1; j >= 0; j-- {
		k2 = crcBack(k2, byte(k1>>24))
		t := k2 | 2
		c := ct[j] ^ byte(t*(t^1)>>8)
		k1 = (k1-1)*keyMulInv - k0&0xff
		k0 = crcBack(k0, c)
	}
	k.k0, k.k1, k.k2 = k0, k1, k2
}

// SealState returns k, the keys at byte pos of an entry's data, masked
// with a pad that only data, the keys at the data's first byte (which
// only the password and the entry's encryption header give), can make:
// a checkpoint keeps its keys sealed, so an index holding it reveals no
// key state to one without the password. OpenState undoes it.
func (k *Keys) SealState(data *Keys, pos int64) [StateLen]byte {
	var s [StateLen]byte
	binary.LittleEndian.PutUint32(s[0:], k.k0)
	binary.LittleEndian.PutUint32(s[4:], k.k1)
	binary.LittleEndian.PutUint32(s[8:], k.k2)
	pad := statePad(data, pos)
	subtle.XORBytes(s[:], s[:], pad[:StateLen])
	return s
}

// OpenState sets k from a state SealState made with the same data keys
// and position. Any 12 bytes open to some keys: a state sealed with
// another password or altered deciphers to noise, which the
// checkpoint's own check then rejects.
func (k *Keys) OpenState(s [StateLen]byte, data *Keys, pos int64) {
	pad := statePad(data, pos)
	var b [StateLen]byte
	subtle.XORBytes(b[:], s[:], pad[:StateLen])
	k.k0 = binary.LittleEndian.Uint32(b[0:])
	k.k1 = binary.LittleEndian.Uint32(b[4:])
	k.k2 = binary.LittleEndian.Uint32(b[8:])
}

func statePad(data *Keys, pos int64) [sha256.Size]byte {
	var b [len(padLabel) + 20]byte
	n := copy(b[:], padLabel)
	binary.LittleEndian.PutUint32(b[n:], data.k0)
	binary.LittleEndian.PutUint32(b[n+4:], data.k1)
	binary.LittleEndian.PutUint32(b[n+8:], data.k2)
	binary.LittleEndian.PutUint64(b[n+12:], uint64(pos))
	return sha256.Sum256(b[:])
}

const padLabel = "unarc ZipCrypto checkpoint\x00"
