package aes7z

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

func TestParseProps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []byte
		cycles  uint8
		salt    int
		wantErr bool
	}{
		{"no salt no iv", []byte{0x13}, 19, 0, false},
		{"iv 16", []byte{0x40 | 19, 0x0F, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 19, 0, false},
		{"salt 1 iv 1", []byte{0xC0 | 5, 0x00, 0xAA, 0xBB}, 5, 1, false},
		{"short", []byte{0x40 | 19, 0x0F, 1}, 0, 0, true},
		{"empty", nil, 0, 0, true},
	} {
		p, err := ParseProps(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err %v", tc.name, err)
			continue
		}
		if err == nil && (p.Cycles != tc.cycles || len(p.Salt) != tc.salt) {
			t.Errorf("%s: got %+v", tc.name, p)
		}
	}
}

// TestKey checks the derivation against a value computed independently
// (Python hashlib: SHA-256 over 2^6 rounds of salt|UTF-16LE pw|counter).
func TestKey(t *testing.T) {
	p := &Props{Cycles: 6, Salt: []byte{0, 1, 2, 3, 4, 5, 6, 7}}
	key, err := Key("pässwörd", p)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(key[:]); got != "18bf29362483ff5010bec77b17d4461e3435dd9ba9595eaec42011ca6fdf8712" {
		t.Fatalf("key %s", got)
	}
	if _, err := Key("x", &Props{Cycles: 30}); !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("2^30 rounds: %v", err)
	}
}

func TestReader(t *testing.T) {
	var key [32]byte
	var iv [16]byte
	key[3], iv[5] = 7, 9
	plain := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	enc := make([]byte, len(plain))
	blk, _ := aes.NewCipher(key[:])
	cipher.NewCBCEncrypter(blk, iv[:]).CryptBlocks(enc, plain)
	r, _ := NewReader(bytes.NewReader(enc), key, iv)
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("decrypt: %v", err)
	}
	r, _ = NewReader(bytes.NewReader(enc[:len(enc)-3]), key, iv)
	if _, err := io.ReadAll(r); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("partial block: %v", err)
	}
}
