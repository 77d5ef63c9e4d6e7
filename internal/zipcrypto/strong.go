package zipcrypto

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// PKWARE strong encryption algorithm ids (APPNOTE 7.2.3.2).
const (
	AlgDES    = 0x6601
	AlgRC2Old = 0x6602
	Alg3DES   = 0x6603
	Alg3DES2  = 0x6609
	AlgAES128 = 0x660E
	AlgAES192 = 0x660F
	AlgAES256 = 0x6610
	AlgRC2    = 0x6702
	AlgRC4    = 0x6801
	AlgBlow   = 0x6720
	AlgTwo    = 0x6721
)

// AlgName names a strong-encryption algorithm id.
func AlgName(id uint16) string {
	switch id {
	case AlgDES:
		return "DES"
	case AlgRC2Old, AlgRC2:
		return "RC2"
	case Alg3DES:
		return "3DES-168"
	case Alg3DES2:
		return "3DES-112"
	case AlgAES128:
		return "AES-128"
	case AlgAES192:
		return "AES-192"
	case AlgAES256:
		return "AES-256"
	case AlgRC4:
		return "RC4"
	case AlgBlow:
		return "Blowfish"
	case AlgTwo:
		return "Twofish"
	}
	return fmt.Sprintf("algorithm %#04x", id)
}

// Strong-encryption flags of the decryption header (APPNOTE 7.2.4).
const (
	strongPassword = 0x0001
	strongCert     = 0x0002
	strongRD3DES   = 0x4000 // random data encrypted with 3DES
)

// MaxStrongHeader bounds the decryption header after its size field,
// as 7-Zip does (256 KiB).
const MaxStrongHeader = 1 << 18

// StrongError says why a decryption header cannot be used.
type StrongError struct {
	Unsupported bool // a real feature we do not implement (else the header is malformed)
	Msg         string
}

func (e *StrongError) Error() string { return e.Msg }

func unsupported(f string, a ...any) error {
	return &StrongError{Unsupported: true, Msg: fmt.Sprintf(f, a...)}
}
func malformed(f string, a ...any) error { return &StrongError{Msg: fmt.Sprintf(f, a...)} }

// Strong is the parsed key material of a password-encrypted entry.
type Strong struct {
	IV     [16]byte
	ivLen  int
	Alg    uint16
	KeyLen int
	rd     []byte // encrypted random data (in the caller's buffer)
	valid  []byte // encrypted validation data + CRC-32
}

// ParseStrongIV reads the IV part of the decryption header: the IV size
// and IV, then the size of the rest. b must hold at least 2 bytes; it
// returns how many header bytes the IV part takes (need more input when
// 0 with a nil error) and the size of the rest of the header.
func (s *Strong) ParseIV(b []byte, crc uint32, usize uint64) (n int, rest int, err error) {
	if len(b) < 2 {
		return 0, 0, nil
	}
	iv := int(binary.LittleEndian.Uint16(b))
	switch iv {
	case 0:
		// No IV stored: CRC-32 and size make it (7-Zip's rule).
		s.IV = [16]byte{}
		binary.LittleEndian.PutUint32(s.IV[:], crc)
		binary.LittleEndian.PutUint64(s.IV[4:], usize)
		s.ivLen = 12
	case 16:
		s.ivLen = 16
	default:
		return 0, 0, unsupported("strong encryption IV of %d bytes", iv)
	}
	n = 2 + iv + 4
	if len(b) < n {
		return 0, 0, nil
	}
	copy(s.IV[:], b[2:2+iv])
	rest = int(binary.LittleEndian.Uint32(b[2+iv:]))
	if rest < 16 || rest > MaxStrongHeader {
		return 0, 0, malformed("strong encryption header of %d bytes", rest)
	}
	return n, rest, nil
}

// ParseRest parses the rest of the decryption header (the Size bytes
// that follow the IV part): format, algorithm, flags, the encrypted
// random data and the validation data. b is kept until Check returns.
func (s *Strong) ParseRest(b []byte) error {
	le := binary.LittleEndian
	if len(b) < 16 {
		return malformed("strong encryption header of %d bytes", len(b))
	}
	if f := le.Uint16(b); f != 3 {
		return unsupported("strong encryption header format %d", f)
	}
	s.Alg = le.Uint16(b[2:])
	bits := int(le.Uint16(b[4:]))
	flags := le.Uint16(b[6:])
	switch s.Alg {
	case AlgAES128, AlgAES192, AlgAES256:
		s.KeyLen = 16 + 8*int(s.Alg-AlgAES128)
		if bits != 8*s.KeyLen {
			return malformed("%s with a %d-bit key", AlgName(s.Alg), bits)
		}
	default:
		return unsupported("strong encryption with %s", AlgName(s.Alg))
	}
	switch {
	case flags&strongCert != 0:
		return unsupported("certificate-based strong encryption")
	case flags&strongRD3DES != 0:
		return unsupported("strong encryption with 3DES-encrypted random data")
	case flags&strongPassword == 0:
		return unsupported("strong encryption without a password (flags %#04x)", flags)
	}
	rd := int(le.Uint16(b[8:]))
	if rd < aes.BlockSize || rd%aes.BlockSize != 0 || 10+rd+4+2 > len(b) {
		return malformed("strong encryption random data of %d bytes", rd)
	}
	s.rd = b[10 : 10+rd]
	p := b[10+rd:]
	if r := le.Uint32(p); r != 0 {
		return unsupported("strong encryption with %d recipients (certificates)", r)
	}
	vs := int(le.Uint16(p[4:]))
	p = p[6:]
	if vs < 4 || vs%aes.BlockSize != 0 || vs != len(p) {
		return malformed("strong encryption validation data of %d bytes (%d left)", vs, len(p))
	}
	s.valid = p
	return nil
}

// deriveKey is the CryptDeriveKey construction for SHA-1 and AES: the
// digest XORed into 64-byte 0x36 and 0x5C pads, each hashed, the two
// hashes concatenated.
func deriveKey(digest *[sha1.Size]byte) [2 * sha1.Size]byte {
	var out [2 * sha1.Size]byte
	var buf [64]byte
	for j, c := range [2]byte{0x36, 0x5c} {
		for i := range buf {
			buf[i] = c
		}
		for i, d := range digest {
			buf[i] ^= d
		}
		h := sha1.Sum(buf[:])
		copy(out[j*sha1.Size:], h[:])
	}
	return out
}

// Check derives the file key from password and verifies it with the
// validation data. It returns the CBC decrypter of the file data (which
// continues the chain of the validation data, as PKWARE writes it), or
// ok false for a wrong password. The buffer given to ParseRest is
// deciphered in place.
func (s *Strong) Check(password string) (cbc cipher.BlockMode, ok bool, err error) {
	d := sha1.Sum([]byte(password))
	master := deriveKey(&d)
	blk, err := aes.NewCipher(master[:s.KeyLen])
	if err != nil {
		return nil, false, err
	}
	cipher.NewCBCDecrypter(blk, s.IV[:]).CryptBlocks(s.rd, s.rd)
	pad := s.rd[len(s.rd)-aes.BlockSize:]
	for _, c := range pad {
		if c != aes.BlockSize {
			return nil, false, nil
		}
	}
	h := sha1.New()
	h.Write(s.IV[:s.ivLen])
	h.Write(s.rd[:len(s.rd)-aes.BlockSize])
	h.Sum(d[:0])
	file := deriveKey(&d)
	fblk, err := aes.NewCipher(file[:s.KeyLen])
	if err != nil {
		return nil, false, err
	}
	cbc = cipher.NewCBCDecrypter(fblk, s.IV[:])
	cbc.CryptBlocks(s.valid, s.valid)
	v := s.valid
	if binary.LittleEndian.Uint32(v[len(v)-4:]) != crc32.ChecksumIEEE(v[:len(v)-4]) {
		return nil, false, nil
	}
	return cbc, true, nil
}
