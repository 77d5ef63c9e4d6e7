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
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"

	"github.com/go-unarc/unarc/internal/hmacx"
	"github.com/go-unarc/unarc/internal/pool"
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
// bound lg2 (the format allows up to 24) before calling. The HMAC comes
// from a pool, so a derivation allocates only the returned Keys5.
func Derive5(password string, salt []byte, lg2 int) *Keys5 {
	mac := kdfMACs.Get()
	defer func() {
		mac.SetKey(nil) // no password-keyed state left in the pool
		kdfMACs.Put(mac)
	}()
	mac.SetKeyString(password)
	var u, f [32]byte
	mac.Block(salt, 1, u[:])
	f = u
	k := new(Keys5)
	rounds := 1 << lg2
	for stage := 0; stage < 3; stage++ {
		for j := 1; j < rounds; j++ {
			mac.Next(u[:])
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

// kdfMACs are HMAC-SHA256 states for Derive5 (crypto/hmac allocated two
// SHA-256 states and their pads per derivation).
var kdfMACs = pool.Of[hmacx.HMAC]{New: func() *hmacx.HMAC { return &hmacx.HMAC{New: sha256.New} }}

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
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], crc)
	d := hmacSHA256(hashKey, b[:])
	var v uint32
	for i, x := range d {
		v ^= uint32(x) << ((i & 3) * 8)
	}
	return v
}

// MACHash converts a BLAKE2sp digest the same way: HMAC-SHA256(hashKey, digest).
func MACHash(hashKey *[32]byte, digest []byte) [32]byte {
	return hmacSHA256(hashKey, digest)
}

// hmacSHA256 is HMAC-SHA256 (RFC 2104) of a message of at most 32 bytes
// under a 32-byte key, computed in stack buffers: crypto/hmac allocates
// two hash states per call, and RAR5 computes one MAC per entry.
func hmacSHA256(key *[32]byte, msg []byte) [32]byte {
	if len(msg) > 32 {
		panic("rarcrypto: MAC message longer than 32 bytes")
	}
	var in [64 + 32]byte
	hmacPad(&in, key, 0x36)
	n := 64 + copy(in[64:], msg)
	inner := sha256.Sum256(in[:n])
	var out [64 + 32]byte
	hmacPad(&out, key, 0x5c)
	copy(out[64:], inner[:])
	return sha256.Sum256(out[:])
}

// hmacPad fills the 64-byte block at the start of b with key, padded
// with zeroes, xored with pad (the inner 0x36 or the outer 0x5c).
func hmacPad(b *[64 + 32]byte, key *[32]byte, pad byte) {
	for i := range 64 {
		k := byte(0)
		if i < len(key) {
			k = key[i]
		}
		b[i] = k ^ pad
	}
}

// Keys3 is the RAR 3.x AES-128 key and IV.
type Keys3 struct {
	Key [16]byte
	IV  [16]byte
}

// Derive3 derives the RAR 3.x key and IV (unrar SetKey30): 2^18 rounds
// of SHA-1 over password(UTF-16LE) || salt, then round(3 bytes LE); every
// 2^14 rounds the last byte of the running digest becomes one IV byte;
// the key is the first 16 digest bytes with each 32-bit word byte-swapped.
//
// RAR 3.x's SHA-1 has a quirk (unrar sha1_process_rar29): a 64-byte block
// hashed straight from the caller's buffer — not through the context's
// own buffer — has its final message schedule written back over those
// bytes, so later rounds hash changed data. Password and salt are one
// update of 2·len+8 bytes; only from 65 bytes (passwords of 29 UTF-16
// units and more) can a block be hashed straight from it, so shorter
// ones take the standard crypto/sha1 path.
func Derive3(password string, salt []byte) *Keys3 {
	const rounds = 1 << 18
	u := utf16.Encode([]rune(password))
	seed := make([]byte, 0, 2*len(u)+len(salt)+3)
	for _, c := range u {
		seed = append(seed, byte(c), byte(c>>8))
	}
	seed = append(seed, salt...)
	k := new(Keys3)
	var d [sha1.Size]byte
	if len(seed) >= 65 {
		var h sha1rar
		h.init()
		var num [3]byte
		for i := 0; i < rounds; i++ {
			h.write(seed, true)
			num[0], num[1], num[2] = byte(i), byte(i>>8), byte(i>>16)
			h.write(num[:], true)
			if i%(rounds/16) == 0 {
				t := h
				d = t.sum()
				k.IV[i/(rounds/16)] = d[19]
			}
		}
		d = h.sum()
	} else {
		n := len(seed)
		seed = seed[:n+3]
		h := sha1.New()
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
	}
	for w := 0; w < 4; w++ {
		for j := 0; j < 4; j++ {
			k.Key[w*4+j] = d[w*4+3-j]
		}
	}
	return k
}

// sha1rar is SHA-1 with RAR 3.x's write-back quirk (see Derive3); with
// quirk false it is plain SHA-1 (the tests compare it to crypto/sha1).
type sha1rar struct {
	h     [5]uint32
	buf   [64]byte
	count uint64
}

func (s *sha1rar) init() {
	s.h = [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}
	s.count = 0
}

// write hashes p; with quirk, each block hashed straight from p gets its
// last 16 schedule words written back into p (little-endian).
func (s *sha1rar) write(p []byte, quirk bool) {
	j := int(s.count & 63)
	s.count += uint64(len(p))
	i := 0
	if j+len(p) > 63 {
		i = copy(s.buf[j:], p)
		var w [16]uint32
		s.block(&w, s.buf[:])
		for ; i+63 < len(p); i += 64 {
			s.block(&w, p[i:i+64])
			if quirk {
				for k := 0; k < 16; k++ {
					binary.LittleEndian.PutUint32(p[i+4*k:], w[k])
				}
			}
		}
		j = 0
	}
	copy(s.buf[j:], p[i:])
}

// sum returns the digest (it changes s: call it on a copy to go on).
func (s *sha1rar) sum() [20]byte {
	n := s.count
	var pad [72]byte
	pad[0] = 0x80
	padLen := 56 - int(n&63)
	if padLen <= 0 {
		padLen += 64
	}
	binary.BigEndian.PutUint64(pad[padLen:], n*8)
	s.write(pad[:padLen+8], false)
	var d [20]byte
	for i, v := range s.h {
		binary.BigEndian.PutUint32(d[4*i:], v)
	}
	return d
}

// block runs the SHA-1 compression over one 64-byte block; w is left
// holding schedule words 64–79 (w[k] = W[64+k]), which is what the quirk
// writes back.
func (s *sha1rar) block(w *[16]uint32, b []byte) {
	for k := 0; k < 16; k++ {
		w[k] = binary.BigEndian.Uint32(b[4*k:])
	}
	a, b1, c, d, e := s.h[0], s.h[1], s.h[2], s.h[3], s.h[4]
	for i := 0; i < 80; i++ {
		if i >= 16 {
			x := w[(i+13)&15] ^ w[(i+8)&15] ^ w[(i+2)&15] ^ w[i&15]
			w[i&15] = bits.RotateLeft32(x, 1)
		}
		var f, k uint32
		switch {
		case i < 20:
			f, k = (b1&c)|(^b1&d), 0x5A827999
		case i < 40:
			f, k = b1^c^d, 0x6ED9EBA1
		case i < 60:
			f, k = (b1&c)|(b1&d)|(c&d), 0x8F1BBCDC
		default:
			f, k = b1^c^d, 0xCA62C1D6
		}
		t := bits.RotateLeft32(a, 5) + f + e + k + w[i&15]
		a, b1, c, d, e = t, a, bits.RotateLeft32(b1, 30), c, d
	}
	s.h[0] += a
	s.h[1] += b1
	s.h[2] += c
	s.h[3] += d
	s.h[4] += e
}
