package rarcrypto

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// TestOldCiphers pins the RAR 1.5 and 1.3 keystreams (checked against
// unrar through the archives of rar's TestOldEncryption) and that each
// decrypts what it encrypts, in pieces of any size.
// The first 16 bytes of "0123456789abcdef" under password "password".
const (
	ks15 = "73edadc31ab3ebbf502f7ec28ec43678"
	ks13 = "ff997084d5632e367bfde3df188e4131"
)

func TestOldCiphers(t *testing.T) {
	plain := bytes.Repeat([]byte("0123456789abcdef"), 5)
	b := append([]byte(nil), plain...)
	NewCipher15("password").XORKeyStream(b)
	if got, want := hex.EncodeToString(b[:16]), ks15; got != want {
		t.Errorf("RAR 1.5: %s, want %s", got, want)
	}
	c := NewCipher15("password")
	c.XORKeyStream(b[:7])
	c.XORKeyStream(b[7:])
	if !bytes.Equal(b, plain) {
		t.Error("RAR 1.5: not its own inverse")
	}
	NewCipher13("password").Encrypt(b)
	if got, want := hex.EncodeToString(b[:16]), ks13; got != want {
		t.Errorf("RAR 1.3: %s, want %s", got, want)
	}
	d := NewCipher13("password")
	d.Decrypt(b[:9])
	d.Decrypt(b[9:])
	if !bytes.Equal(b, plain) {
		t.Error("RAR 1.3: Decrypt does not undo Encrypt")
	}
	// unrar keeps 127 bytes of a password and stops at a NUL.
	long := string(bytes.Repeat([]byte{'p'}, 200))
	x, y := append([]byte(nil), plain...), append([]byte(nil), plain...)
	NewCipher15(long).XORKeyStream(x)
	NewCipher15(long[:127] + "zz").XORKeyStream(y)
	if !bytes.Equal(x, y) {
		t.Error("RAR 1.5: password not cut at 127 bytes")
	}
}
