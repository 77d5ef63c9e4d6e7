package aes7z

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// katContent is the file in every ../../testdata/aes7z archive, as
// testdata/aes7z/make.sh writes it.
func katContent() []byte {
	var b []byte
	for i := range 40 {
		b = fmt.Appendf(b, "7zAES known answer %02d\n", i)
	}
	return b
}

// coderProps finds the 7zAES coder record of a plain (uncompressed,
// unencrypted) 7z header: flags 0x24 (4-byte ID, has properties), ID
// 06 F1 07 01, a one-byte property size, the properties (7zFormat.txt,
// "Coders Info").
func coderProps(t *testing.T, hdr []byte) []byte {
	t.Helper()
	i := bytes.Index(hdr, []byte{0x24, 0x06, 0xF1, 0x07, 0x01})
	if i < 0 || i+6 > len(hdr) || hdr[i+5] >= 0x80 || i+6+int(hdr[i+5]) > len(hdr) {
		t.Fatal("no 7zAES coder in the header")
	}
	return hdr[i+6 : i+6+int(hdr[i+5])]
}

// TestKey7zz decrypts archives made by 7zz (testdata/aes7z/make.sh) with
// the key this package derives: the ciphertext comes from 7-Zip's own
// derivation, so a wrong byte order, counter width, password encoding or
// round count shows as garbage. The passwords cover ASCII, Latin-1 and
// BMP symbols, and a character outside the BMP (a UTF-16 surrogate pair).
func TestKey7zz(t *testing.T) {
	want := katContent()
	cases := []struct{ file, password string }{
		{"ascii.7z", "secret"},
		{"bmp.7z", "pässwörd ☃"},
		{"astral.7z", "key 🔑"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "aes7z", c.file))
			if err != nil {
				t.Fatal(err)
			}
			// Start header: signature, version, CRC, next header offset
			// (u64 at 12), size, CRC; the packed stream follows at 32.
			next := binary.LittleEndian.Uint64(data[12:20])
			if len(data) < 32 || next > uint64(len(data)-32) {
				t.Fatal("bad start header")
			}
			p, err := ParseProps(coderProps(t, data[32+next:]))
			if err != nil {
				t.Fatal(err)
			}
			if p.Cycles != 19 {
				t.Errorf("7zz wrote 2^%d rounds, want its default 2^19", p.Cycles)
			}
			key, err := Key(c.password, &p)
			if err != nil {
				t.Fatal(err)
			}
			packed := data[32 : 32+next&^15]
			r, err := NewReader(bytes.NewReader(packed), key, p.IV)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < len(want) || !bytes.Equal(got[:len(want)], want) {
				t.Fatalf("decrypted %q..., want %q...", got[:min(len(got), 24)], want[:24])
			}
		})
	}
}

// TestKeySpecVectors checks the derivation (7-Zip's 7zAes.cpp,
// CKeyInfo::CalcKey) on vectors made without this package: the 0x3F
// power, which skips hashing and copies salt then UTF-16LE password into
// the zero key, worked out by hand; and one round (power 0), a single
// SHA-256 of salt | UTF-16LE password | 8-byte counter 0, whose sums come
// from coreutils sha256sum over the bytes written out with printf.
func TestKeySpecVectors(t *testing.T) {
	for _, c := range []struct {
		name     string
		password string
		p        Props
		want     string
	}{
		{"no hashing", "kat", Props{Cycles: 0x3F, Salt: []byte{1, 2, 3}},
			"0102036b006100740000000000000000" + "00000000000000000000000000000000"},
		{"no hashing, long password cut at 32 bytes", "0123456789abcdefXYZ", Props{Cycles: 0x3F},
			"30003100320033003400350036003700" + "38003900610062006300640065006600"},
		// printf 's\0e\0c\0r\0e\0t\0\0\0\0\0\0\0\0\0' | sha256sum
		{"one round", "secret", Props{Cycles: 0},
			"dd6a5aec468be83576632a55536306a455176f06e38df64c0100ac97e657f67f"},
		// printf '\x01\x02\x03k\0a\0t\0\0\0\0\0\0\0\0\0' | sha256sum
		{"one round with salt", "kat", Props{Cycles: 0, Salt: []byte{1, 2, 3}},
			"1b64e7460679cd0fcadd3dfaf745ff3f9f923850f7dd8bba6a9a1e3bd3e2b863"},
	} {
		key, err := Key(c.password, &c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := hex.EncodeToString(key[:]); got != c.want {
			t.Errorf("%s: key %s, want %s", c.name, got, c.want)
		}
	}
}
