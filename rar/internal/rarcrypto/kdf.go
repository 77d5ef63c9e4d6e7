// Package rarcrypto derives the AES keys RAR archives use and decrypts
// their CBC streams.
//
// RAR 5.0 (technote "Archive encryption header", "File encryption record"):
// AES-256-CBC, key = PBKDF2-HMAC-SHA256(password, salt, 2^n); the same
// PBKDF2 chain continued for 16 more rounds gives the hash key (used to
// turn stored checksums into MACs) and 16 more the password check value.
//
// RAR 3.x/4.x: AES-128-CBC, key and IV from 2^18 rounds of SHA-1 over the
// UTF-16LE password, the 8-byte salt and a 3-byte round counter.
package rarcrypto

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"unicode/utf16"
)

// Sizes fixed by the RAR 5.0 format.
const (
	SaltSize5  = 16
	IVSize     = 16
	CheckSize5 = 8 // password check value; followed by 4 bytes of its SHA-256
	MaxLg2     = 24
)

// Keys5 are the three values RAR 5.0 derives from one password and salt.
type Keys5 struct {
	Key     [32]byte // AES-256 key
	HashKey [32]byte // HMAC key for checksum conversion (unrar ConvertHashToMAC)
	Check   [8]byte  // password check value, folded from the third PBKDF2 value
}

// Derive5 runs PBKDF2-HMAC-SHA256 for 2^lg2 rounds and then 16 + 16 more
// on the same chain (unrar pbkdf2 with three output values). Callers
// bound lg2 (the format allows up to 24) before calling.
func Derive5(password string, salt []byte, lg2 int) *Keys5 {
	mac := hmac.New(sha256.New, []byte(password))
	var u, f [32]byte
	mac.Write(salt)
	mac.Write([]byte{0, 0, 0, 1}) // PBKDF2 block index 1
	mac.Sum(u[:0])
	f = u
	k := new(Keys5)
	rounds := 1 << lg2
	for stage := 0; stage < 3; stage++ {
		for j := 1; j < rounds; j++ {
			mac.Reset()
			mac.Write(u[:])
			mac.Sum(u[:0])
			for i := range f {
				f[i] ^= u[i]
			}
		}
		switch stage {
		case 0:
			k.Key = f
		case 1:
			k.HashKey = f
		case 2:
			for i, b := range f {
				k.Check[i%8] ^= b
			}
		}
		rounds = 17 // 16 more rounds per extra value
	}
	return k
}

// CheckSum5 reports whether the 4-byte checksum that follows a stored
// password check value matches it (first 4 bytes of its SHA-256). A
// mismatch means the header itself is damaged, not that the password is wrong.
func CheckSum5(check, sum []byte) bool {
	h := sha256.Sum256(check)
	return len(sum) >= 4 && h[0] == sum[0] && h[1] == sum[1] && h[2] == sum[2] && h[3] == sum[3]
}

// MACCRC32 converts a plain CRC32 to the value RAR 5.0 stores for files
// encrypted with the "use MAC" flag: HMAC-SHA256(hashKey, crc LE) folded
// into 32 bits by XOR of the little-endian words.
func MACCRC32(hashKey *[32]byte, crc uint32) uint32 {
	mac := hmac.New(sha256.New, hashKey[:])
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], crc)
	mac.Write(b[:])
	var d [32]byte
	mac.Sum(d[:0])
	var v uint32
	for i, x := range d {
		v ^= uint32(x) << ((i & 3) * 8)
	}
	return v
}

// MACHash converts a BLAKE2sp digest the same way: HMAC-SHA256(hashKey, digest).
func MACHash(hashKey *[32]byte, digest []byte) []byte {
	mac := hmac.New(sha256.New, hashKey[:])
	mac.Write(digest)
	return mac.Sum(nil)
}

// Keys3 is the RAR 3.x AES-128 key and IV.
type Keys3 struct {
	Key [16]byte
	IV  [16]byte
}

// Derive3 derives the RAR 3.x key and IV (unrar SetKey30): 2^18 rounds
// of SHA-1 over password(UTF-16LE) || salt || round(3 bytes LE); every
// 2^14 rounds the last byte of the running digest becomes one IV byte;
// the key is the first 16 digest bytes with each 32-bit word byte-swapped.
func Derive3(password string, salt []byte) *Keys3 {
	const rounds = 1 << 18
	u := utf16.Encode([]rune(password))
	seed := make([]byte, 0, 2*len(u)+len(salt)+3)
	for _, c := range u {
		seed = append(seed, byte(c), byte(c>>8))
	}
	seed = append(seed, salt...)
	n := len(seed)
	seed = seed[:n+3]
	h := sha1.New()
	k := new(Keys3)
	var d [sha1.Size]byte
	for i := 0; i < rounds; i++ {
		seed[n], seed[n+1], seed[n+2] = byte(i), byte(i>>8), byte(i>>16)
		h.Write(seed)
		if i%(rounds/16) == 0 {
			// A snapshot of the running digest; Sum does not change h.
			h.Sum(d[:0])
			k.IV[i/(rounds/16)] = d[19]
		}
	}
	h.Sum(d[:0])
	for w := 0; w < 4; w++ {
		for j := 0; j < 4; j++ {
			k.Key[w*4+j] = d[w*4+3-j]
		}
	}
	return k
}
