package rarcrypto

import (
	"hash/crc32"
	"io"
	"math/bits"
)

// Cipher15 is the RAR 1.5 stream cipher (unrar crypt1.cpp, SetKey15 and
// Crypt15): four 16-bit keys from the password's CRC-32 and its bytes
// mixed with the CRC-32 table, stepped once per byte; each byte is XORed
// with the high byte of the first key, so the same call encrypts and
// decrypts.
type Cipher15 struct {
	key [4]uint16
}

// NewCipher15 sets up the cipher for password (its bytes as the archiver
// stored them, at most 127 as unrar keeps).
func NewCipher15(password string) *Cipher15 {
	pw := clip(password)
	// unrar's CRC32(0xffffffff, …) has no final inversion.
	crc := ^crc32.ChecksumIEEE(pw)
	c := &Cipher15{key: [4]uint16{uint16(crc), uint16(crc >> 16), 0, 0}}
	t := crc32.IEEETable
	for _, p := range pw {
		c.key[2] ^= uint16(p) ^ uint16(t[p])
		c.key[3] += uint16(p) + uint16(t[p]>>16)
	}
	return c
}

// XORKeyStream encrypts or decrypts b in place.
func (c *Cipher15) XORKeyStream(b []byte) {
	t := crc32.IEEETable
	k0, k1, k2, k3 := c.key[0], c.key[1], c.key[2], c.key[3]
	for i := range b {
		k0 += 0x1234
		x := t[(k0&0x1fe)>>1]
		k1 ^= uint16(x)
		k2 -= uint16(x >> 16)
		k0 ^= k2
		k3 = bits.RotateLeft16(k3, -1) ^ k1
		k3 = bits.RotateLeft16(k3, -1)
		k0 ^= k3
		b[i] ^= byte(k0 >> 8)
	}
	c.key = [4]uint16{k0, k1, k2, k3}
}

// Cipher13 is the RAR 1.3 cipher (unrar SetKey13 and Decrypt13): three
// byte keys summed from the password, stepped per byte and subtracted
// from it.
type Cipher13 struct {
	key [3]byte
}

// NewCipher13 sets up the RAR 1.3 cipher for password.
func NewCipher13(password string) *Cipher13 {
	c := &Cipher13{}
	for _, p := range clip(password) {
		c.key[0] += p
		c.key[1] ^= p
		c.key[2] = bits.RotateLeft8(c.key[2]+p, 1)
	}
	return c
}

// Decrypt decrypts b in place.
func (c *Cipher13) Decrypt(b []byte) {
	k := &c.key
	for i := range b {
		k[1] += k[2]
		k[0] += k[1]
		b[i] -= k[0]
	}
}

// Encrypt is Decrypt's inverse (for tests that build archives).
func (c *Cipher13) Encrypt(b []byte) {
	k := &c.key
	for i := range b {
		k[1] += k[2]
		k[0] += k[1]
		b[i] += k[0]
	}
}

// clip is the password as the old ciphers see it: unrar keeps at most
// MAXPASSWORD_RAR-1 (127) bytes and stops at a NUL (a C string).
func clip(password string) []byte {
	pw := []byte(password)
	for i, b := range pw {
		if b == 0 {
			pw = pw[:i]
			break
		}
	}
	if len(pw) > 127 {
		pw = pw[:127]
	}
	return pw
}

// StreamReader decrypts a stream cipher's data as it is read.
type StreamReader struct {
	r   io.Reader
	dec func([]byte)
}

// NewStreamReader returns a reader that decrypts what it reads from r
// with dec, in place.
func NewStreamReader(r io.Reader, dec func([]byte)) *StreamReader {
	return &StreamReader{r: r, dec: dec}
}

func (s *StreamReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.dec(p[:n])
	return n, err
}
