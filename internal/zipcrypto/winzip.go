package zipcrypto

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"

	"github.com/go-unarc/unarc/internal/hmacx"
)

// WinZip AES framing constants (WinZip's AE-x specification).
const (
	// Rounds is the PBKDF2-HMAC-SHA1 iteration count of every WinZip AES
	// key derivation.
	Rounds = 1000
	// VerifierLen is the length of the password verifier after the salt.
	VerifierLen = 2
	// MACLen is the stored length of the HMAC-SHA1 (its first 80 bits).
	MACLen = 10
	// MaxKeyLen is the largest AES key (strength 3).
	MaxKeyLen = 32
)

// SaltLen returns the salt length of AES strength s (1, 2, 3 for 128,
// 192, 256 bits), 0 for an unknown strength.
func SaltLen(s byte) int {
	switch s {
	case 1, 2, 3:
		return 4 + 4*int(s)
	}
	return 0
}

// KeyLen returns the AES key length of strength s, 0 for an unknown one.
func KeyLen(s byte) int {
	switch s {
	case 1, 2, 3:
		return 8 + 8*int(s)
	}
	return 0
}

// DerivedKey is what one WinZip AES key derivation yields: the AES key,
// the HMAC-SHA1 key (same length) and the 2-byte password verifier.
type DerivedKey struct {
	N        int // key length
	Enc, MAC [MaxKeyLen]byte
	Verifier [VerifierLen]byte
}

// Derive runs PBKDF2-HMAC-SHA1 with Rounds iterations over password and
// salt, for a key of keyLen bytes (16, 24 or 32).
func Derive(password string, salt []byte, keyLen int) (DerivedKey, error) {
	var h hmacx.HMAC
	return DeriveWith(&h, password, salt, keyLen)
}

// DeriveWith is Derive with h (HMAC-SHA1: a zero or SHA-1 hmacx.HMAC) as
// the PBKDF2 state, so a reused h derives without allocating; h is left
// keyed with password.
func DeriveWith(h *hmacx.HMAC, password string, salt []byte, keyLen int) (DerivedKey, error) {
	var d DerivedKey
	if keyLen <= 0 || keyLen > MaxKeyLen {
		return d, errKeyLen
	}
	var b [2*MaxKeyLen + VerifierLen]byte
	h.PBKDF2(password, salt, Rounds, b[:2*keyLen+VerifierLen])
	d.N = keyLen
	copy(d.Enc[:], b[:keyLen])
	copy(d.MAC[:], b[keyLen:2*keyLen])
	copy(d.Verifier[:], b[2*keyLen:])
	return d, nil
}

var errKeyLen = errors.New("WinZip AES key length out of range")

// ctrBlocks is how many counter blocks CTR enciphers per batch.
const ctrBlocks = 32

// CTR is AES in WinZip's counter mode: the counter is a 128-bit
// little-endian integer starting at 1, enciphered to the key stream.
// The zero value is not usable; call Reset.
type CTR struct {
	block cipher.Block
	key   [MaxKeyLen]byte // the key block was made from
	keyN  int
	ctr   uint64 // the next counter value (low 64 bits; files never reach 2^64 blocks)
	ks    [ctrBlocks * aes.BlockSize]byte
	in    [ctrBlocks * aes.BlockSize]byte // counter blocks (here, not on the stack: the cipher is an interface)
	pos   int                             // bytes of ks used; len(ks) when empty
}

// Reset starts a stream under key (16, 24 or 32 bytes). The cipher is
// kept when the key is the one of the previous stream, so entries that
// share a key set up nothing.
func (c *CTR) Reset(key []byte) error {
	if c.block == nil || c.keyN != len(key) || string(c.key[:c.keyN]) != string(key) {
		b, err := aes.NewCipher(key)
		if err != nil {
			return err
		}
		c.block = b
		c.keyN = copy(c.key[:], key)
	}
	c.ctr = 1
	c.pos = len(c.ks)
	return nil
}

// SetOffset positions the key stream at byte off of the stream: block k of
// the data is enciphered with counter k+1, so any offset is reached
// without enciphering what precedes it.
func (c *CTR) SetOffset(off int64) {
	c.ctr = 1 + uint64(off)/aes.BlockSize
	c.pos = len(c.ks)
	if r := int(off % aes.BlockSize); r != 0 {
		c.refill()
		c.pos = r
	}
}

func (c *CTR) refill() {
	in := &c.in
	for i := 0; i < ctrBlocks; i++ {
		binary.LittleEndian.PutUint64(in[i*aes.BlockSize:], c.ctr)
		c.ctr++
	}
	// Enciphering the counter blocks one by one is what the stdlib block
	// offers; the batch keeps the loop tight and the XOR wide.
	for i := 0; i < len(in); i += aes.BlockSize {
		c.block.Encrypt(c.ks[i:i+aes.BlockSize], in[i:i+aes.BlockSize])
	}
	c.pos = 0
}

// XOR applies the key stream to b in place (encryption and decryption
// are the same).
func (c *CTR) XOR(b []byte) {
	for len(b) > 0 {
		if c.pos == len(c.ks) {
			c.refill()
		}
		n := subtle.XORBytes(b, b, c.ks[c.pos:])
		c.pos += n
		b = b[n:]
	}
}

// pbkdf2SHA1 is the PBKDF2-HMAC-SHA1 of the derivation (RFC 2898), kept
// separate so the RFC 6070 vectors test it with their iteration counts.
func pbkdf2SHA1(password string, salt []byte, rounds, n int) ([]byte, error) {
	var h hmacx.HMAC
	out := make([]byte, n)
	h.PBKDF2(password, salt, rounds, out)
	return out, nil
}
