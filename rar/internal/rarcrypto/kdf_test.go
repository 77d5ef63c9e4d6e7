package rarcrypto

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestPBKDF2Vectors checks the PBKDF2-HMAC-SHA256 core of Derive5 against
// published vectors: RFC 7914 §11 ("passwd"/"salt", c=1; the first 32 of
// its 64 bytes are PBKDF2 block 1) and the widely used SHA-256 analogues
// of RFC 6070 ("password"/"salt", c=1, 2, 4096 = 2^0, 2^1, 2^12).
func TestPBKDF2Vectors(t *testing.T) {
	for _, v := range []struct {
		pw, salt string
		lg2      int
		want     string
	}{
		{"passwd", "salt", 0, "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"},
		{"password", "salt", 0, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"},
		{"password", "salt", 1, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"},
		{"password", "salt", 12, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"},
	} {
		k := Derive5(v.pw, []byte(v.salt), v.lg2)
		if got := hex.EncodeToString(k.Key[:]); got != v.want {
			t.Errorf("PBKDF2(%q, %q, 2^%d) = %s, want %s", v.pw, v.salt, v.lg2, got, v.want)
		}
	}
}

// TestDerive5Chain: the hash key and the check value continue the same
// PBKDF2 chain for 16 and 32 more rounds (unrar's three-value pbkdf2),
// compared with crypto/pbkdf2 run to those counts.
func TestDerive5Chain(t *testing.T) {
	salt := []byte("0123456789abcdef")
	for _, lg2 := range []int{0, 3, 10} {
		k := Derive5("pässwörd", salt, lg2)
		n := 1 << lg2
		key, _ := pbkdf2.Key(sha256.New, "pässwörd", salt, n, 32)
		hk, _ := pbkdf2.Key(sha256.New, "pässwörd", salt, n+16, 32)
		ck, _ := pbkdf2.Key(sha256.New, "pässwörd", salt, n+32, 32)
		var check [8]byte
		for i, b := range ck {
			check[i%8] ^= b
		}
		if !bytes.Equal(k.Key[:], key) || !bytes.Equal(k.HashKey[:], hk) || k.Check != check {
			t.Errorf("2^%d: Derive5 = %x/%x/%x, want %x/%x/%x", lg2, k.Key, k.HashKey, k.Check, key, hk, check)
		}
	}
}

const testdata = "../../../testdata/rar"

// TestDerive5Archive: the password check value rar 7 stored in the -hp
// encryption header of rar5_hp_stored.rar (password "test", 2^15 rounds)
// is what Derive5 computes, and the header checksum of the check value
// holds.
func TestDerive5Archive(t *testing.T) {
	d, err := os.ReadFile(filepath.Join(testdata, "rar5_hp_stored.rar"))
	if err != nil {
		t.Fatal(err)
	}
	// marker(8) CRC(4) size(1) type=4 flags=0 version=0 encflags=1 lg2 salt check sum
	h := d[8+4+1:]
	if h[0] != 4 || h[3] != 1 {
		t.Fatalf("unexpected header %x", h[:8])
	}
	lg2 := int(h[4])
	salt := h[5 : 5+SaltSize5]
	check := h[5+SaltSize5 : 5+SaltSize5+CheckSize5]
	sum := h[5+SaltSize5+CheckSize5:][:4]
	if lg2 != 15 || !CheckSum5(check, sum) {
		t.Fatalf("lg2 %d, check sum %v", lg2, CheckSum5(check, sum))
	}
	if k := Derive5("test", salt, lg2); !bytes.Equal(k.Check[:], check) {
		t.Errorf("check value %x, archive has %x", k.Check, check)
	}
	if k := Derive5("tesT", salt, lg2); bytes.Equal(k.Check[:], check) {
		t.Error("a wrong password gives the stored check value")
	}
}

// rar4Header decrypts the first encrypted block header of a RAR 3.x -hp
// archive with pw and reports whether its CRC16 holds.
func rar4Header(t *testing.T, name, pw string) (bool, *Keys3) {
	t.Helper()
	d, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	off := 7 + int(binary.LittleEndian.Uint16(d[7+5:])) // after the main header
	salt := d[off : off+8]
	enc := d[off+8:]
	k := Derive3(pw, salt)
	b, _ := aes.NewCipher(k.Key[:])
	first := make([]byte, 16)
	cipher.NewCBCDecrypter(b, k.IV[:]).CryptBlocks(first, enc[:16])
	size := int(binary.LittleEndian.Uint16(first[5:]))
	if size < 7 || size > len(enc) {
		return false, k
	}
	h := make([]byte, (size+15)&^15)
	cipher.NewCBCDecrypter(b, k.IV[:]).CryptBlocks(h, enc[:len(h)])
	return uint16(crc32.ChecksumIEEE(h[2:size])) == binary.LittleEndian.Uint16(h), k
}

// TestDerive3Archive: keys derived for archives rar 6 wrote with -ma4
// -hp decrypt their first header to a valid CRC: password "test" (the
// plain SHA-1 path) and a 44-character one (the RAR 3.x SHA-1 quirk path);
// the key of the first is also pinned as a known answer.
func TestDerive3Archive(t *testing.T) {
	ok, k := rar4Header(t, "rar4_hp_stored.rar", "test")
	if !ok {
		t.Error("rar4_hp_stored.rar: header does not decrypt with the right password")
	}
	if got := hex.EncodeToString(k.Key[:]) + hex.EncodeToString(k.IV[:]); got != derive3KAT {
		t.Errorf("Derive3(test, salt) = %s, want %s", got, derive3KAT)
	}
	if ok, _ := rar4Header(t, "rar4_hp_stored.rar", "Test"); ok {
		t.Error("rar4_hp_stored.rar: header decrypts with a wrong password")
	}
	const long = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
	if ok, _ := rar4Header(t, "rar4_hp_longpw.rar", long); !ok {
		t.Error("rar4_hp_longpw.rar: header does not decrypt with the 44-character password")
	}
}

// derive3KAT is Key||IV of Derive3("test", salt of rar4_hp_stored.rar),
// pinned after TestDerive3Archive checked it against the archive.
const derive3KAT = "44e6521c666b52aa25a2610e3a416d8303d3fbbc70df72871288510ef2ff0296"

// TestSHA1RarPlain: without the quirk sha1rar is SHA-1 (crypto/sha1), for
// every length around the block boundaries and split writes.
func TestSHA1RarPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for n := 0; n <= len(buf); n++ {
		for _, cut := range []int{0, n / 3, n / 2} {
			var h sha1rar
			h.init()
			h.write(bytes.Clone(buf[:cut]), false)
			h.write(bytes.Clone(buf[cut:n]), false)
			if got, want := h.sum(), sha1.Sum(buf[:n]); got != want {
				t.Fatalf("len %d cut %d: %x, want %x", n, cut, got, want)
			}
		}
	}
}

// TestSHA1RarQuirk: with the quirk, a block hashed straight from the
// caller's buffer is overwritten by its schedule words 64–79; one that
// goes through the context buffer is left alone, and the digest of that
// write is still plain SHA-1.
func TestSHA1RarQuirk(t *testing.T) {
	data := make([]byte, 150)
	for i := range data {
		data[i] = byte(i)
	}
	orig := bytes.Clone(data)
	var h sha1rar
	h.init()
	h.write(data[:10], true) // buffered: 10 bytes in the context
	h.write(data[10:], true) // 54 fill the buffer, 64 go straight, 22 buffered
	if got, want := h.sum(), sha1.Sum(orig); got != want {
		t.Errorf("digest %x, want the plain SHA-1 %x", got, want)
	}
	if !bytes.Equal(data[:64], orig[:64]) || !bytes.Equal(data[128:], orig[128:]) {
		t.Error("bytes outside the straight block changed")
	}
	if bytes.Equal(data[64:128], orig[64:128]) {
		t.Error("the straight block was not written back")
	}
}

// TestCBCReader: decrypts what crypto/cipher encrypted, at any read size;
// a partial final block is io.ErrUnexpectedEOF; a source error is passed
// on as such even when it stops mid-block.
func TestCBCReader(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	iv := bytes.Repeat([]byte{9}, 16)
	plain := make([]byte, 10000-10000%16)
	for i := range plain {
		plain[i] = byte(i * 7)
	}
	enc := make([]byte, len(plain))
	b, _ := aes.NewCipher(key)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(enc, plain)
	r, err := NewReader(bytes.NewReader(enc), key, iv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.LimitReader(r, int64(len(plain))))
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("round trip: %v, equal %v", err, bytes.Equal(got, plain))
	}
	r.Reset(bytes.NewReader(enc[:len(enc)-5]), key, iv)
	if _, err := io.ReadAll(r); err != io.ErrUnexpectedEOF {
		t.Errorf("partial block: %v", err)
	}
	cut := errors.New("source cut")
	r.Reset(io.MultiReader(bytes.NewReader(enc[:100]), errReader{cut}), key, iv)
	if _, err := io.ReadAll(r); err != cut {
		t.Errorf("source error mid-block: %v, want %v", err, cut)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestCBCReuse: a Reader reset under the same key only takes the new IV
// (no allocation), and one reset under another key really re-keys; each
// stream decrypts right whatever came before it.
func TestCBCReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := [][]byte{make([]byte, 32), make([]byte, 32), make([]byte, 16)}
	for _, k := range keys {
		for i := range k {
			k[i] = byte(rng.Uint32())
		}
	}
	plain := make([]byte, 4096*2+48)
	for i := range plain {
		plain[i] = byte(rng.Uint32())
	}
	encrypt := func(key, iv []byte) []byte {
		b, _ := aes.NewCipher(key)
		out := make([]byte, len(plain))
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, plain)
		return out
	}
	var r Reader
	for i, ki := range []int{0, 0, 1, 1, 0, 2, 2, 0} {
		iv := make([]byte, 16)
		iv[0] = byte(i)
		enc := encrypt(keys[ki], iv)
		if err := r.Reset(bytes.NewReader(enc), keys[ki], iv); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(&r)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("stream %d (key %d): %v, equal %v", i, ki, err, bytes.Equal(got, plain))
		}
		r.Release()
	}
	iv := make([]byte, 16)
	src := bytes.NewReader(nil)
	if n := testing.AllocsPerRun(50, func() {
		if err := r.Reset(src, keys[0], iv); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Reset under the same key: %.1f allocations, want 0", n)
	}
	if err := r.Reset(src, make([]byte, 33), iv); err == nil {
		t.Error("33-byte key accepted")
	}
}

// TestHMACSHA256: the stack HMAC equals crypto/hmac for every message
// length RAR5 uses (4-byte CRCs, 32-byte digests) and the ones between.
func TestHMACSHA256(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var key [32]byte
	for trial := range 200 {
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		msg := make([]byte, trial%33)
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		m := hmac.New(sha256.New, key[:])
		m.Write(msg)
		want := m.Sum(nil)
		if got := hmacSHA256(&key, msg); !bytes.Equal(got[:], want) {
			t.Fatalf("len %d: %x, want %x", len(msg), got, want)
		}
	}
	crc := uint32(0xCBF43926)
	if n := testing.AllocsPerRun(50, func() { crc = MACCRC32(&key, crc) }); n != 0 {
		t.Errorf("MACCRC32: %.1f allocations, want 0", n)
	}
}

// TestDerive5Allocs: a warm Derive5 allocates only the Keys5 it returns
// (crypto/hmac took two SHA-256 states and their pads, about 600 bytes).
func TestDerive5Allocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	salt := []byte("0123456789abcdef")
	Derive5("test", salt, 4)
	if a := testing.AllocsPerRun(10, func() { Derive5("test", salt, 4) }); a > 1 {
		t.Fatalf("%v allocations per derivation, want 1", a)
	}
}
