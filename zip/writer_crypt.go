package zip

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/hmacx"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// encryptor enciphers an entry's data on its way to the output: WinZip
// AES-256 (AE-2) or ZipCrypto. It lives in the pooled state; a new
// entry's salt means a new key derivation and AES key schedule.
type encryptor struct {
	kind int // 0, cryptAES or cryptZip
	out  *output
	ctr  zipcrypto.CTR
	mac  hmacx.HMAC // HMAC-SHA1 over the ciphertext
	kdf  hmacx.HMAC // the PBKDF2 state
	key  zipcrypto.DerivedKey
	zc   zipcrypto.Keys
	hdr  [16 + zipcrypto.VerifierLen]byte
	sum  [20]byte
	buf  [16 << 10]byte // a copy of bytes the caller owns, enciphered
}

// aesSaltLen is the salt of AES-256 (strength 3).
const aesSaltLen = 16

// aesOverhead is what AES adds to an entry's data: salt, verifier and
// authentication code.
const aesOverhead = aesSaltLen + zipcrypto.VerifierLen + zipcrypto.MACLen

// start begins an entry's encryption and writes its header: the salt and
// password verifier (AES), or the 12-byte header whose last byte is
// check (ZipCrypto).
func (e *encryptor) start(kind int, out *output, pw string, rnd io.Reader, check byte) error {
	e.kind, e.out = kind, out
	switch kind {
	case cryptAES:
		salt := e.hdr[:aesSaltLen]
		if _, err := io.ReadFull(rnd, salt); err != nil {
			return fmt.Errorf("zip writer: random source: %w", err)
		}
		var err error
		e.key, err = zipcrypto.DeriveWith(&e.kdf, pw, salt, zipcrypto.KeyLen(3))
		if err != nil {
			return err
		}
		k := &e.key
		copy(e.hdr[aesSaltLen:], k.Verifier[:])
		if err := e.ctr.Reset(k.Enc[:k.N]); err != nil {
			return err
		}
		e.mac.SetKey(k.MAC[:k.N])
		return out.write(e.hdr[:])
	case cryptZip:
		h := e.buf[:zipcrypto.HeaderLen]
		if _, err := io.ReadFull(rnd, h[:zipcrypto.HeaderLen-1]); err != nil {
			return fmt.Errorf("zip writer: random source: %w", err)
		}
		h[zipcrypto.HeaderLen-1] = check
		e.zc.Init(pw)
		e.zc.Encrypt(h)
		return out.write(h)
	}
	return nil
}

// encipher enciphers b in place (the AES code covers it).
func (e *encryptor) encipher(b []byte) {
	switch e.kind {
	case cryptAES:
		e.ctr.XOR(b)
		e.mac.Write(b)
	case cryptZip:
		e.zc.Encrypt(b)
	}
}

// Write enciphers a copy of p and writes it out.
func (e *encryptor) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(e.buf[:], p[n:])
		e.encipher(e.buf[:c])
		if err := e.out.write(e.buf[:c]); err != nil {
			return n, err
		}
		n += c
	}
	return n, nil
}

// writeOwned enciphers b, which the Writer owns, in place and writes it.
func (e *encryptor) writeOwned(b []byte) error {
	e.encipher(b)
	return e.out.write(b)
}

// finish writes what follows the data: AES's authentication code.
func (e *encryptor) finish() error {
	if e.kind != cryptAES {
		return nil
	}
	s := e.mac.Sum(e.sum[:0])
	return e.out.write(s[:zipcrypto.MACLen])
}

// forget clears the keys.
func (e *encryptor) forget() {
	e.key = zipcrypto.DerivedKey{}
	e.zc = zipcrypto.Keys{}
	clear(e.hdr[:])
}
