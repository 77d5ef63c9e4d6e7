package zipcrypto

import (
	"bytes"
	"crypto/aes"
	"crypto/pbkdf2"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"testing"

	"github.com/go-unarc/unarc/internal/hmacx"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestPBKDF2RFC6070: the key derivation against RFC 6070's vectors.
func TestPBKDF2RFC6070(t *testing.T) {
	for _, v := range []struct {
		pw, salt string
		c, n     int
		want     string
	}{
		{"password", "salt", 1, 20, "0c60c80f961f0e71f3a9b524af6012062fe037a6"},
		{"password", "salt", 2, 20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"},
		{"password", "salt", 4096, 20, "4b007901b765489abead49d926f721d065a429c1"},
		{"passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 25, "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"},
		{"pass\x00word", "sa\x00lt", 4096, 16, "56fa6aa75548099dcc37d7f03425e0c3"},
	} {
		got, err := pbkdf2SHA1(v.pw, []byte(v.salt), v.c, v.n)
		if err != nil || hex.EncodeToString(got) != v.want {
			t.Errorf("PBKDF2(%q, %q, %d) = %x, %v; want %s", v.pw, v.salt, v.c, got, err, v.want)
		}
	}
}

// TestDeriveSplit: Derive cuts the PBKDF2 output into key, MAC key and
// verifier in that order.
func TestDeriveSplit(t *testing.T) {
	salt := []byte("0123456789abcdef")
	for _, kl := range []int{16, 24, 32} {
		d, err := Derive("pw", salt, kl)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := pbkdf2SHA1("pw", salt, Rounds, 2*kl+2)
		if !bytes.Equal(d.Enc[:kl], all[:kl]) || !bytes.Equal(d.MAC[:kl], all[kl:2*kl]) || !bytes.Equal(d.Verifier[:], all[2*kl:]) || d.N != kl {
			t.Errorf("key length %d: split wrong", kl)
		}
	}
}

// TestCTRLittleEndian: the key stream is AES of the little-endian counter
// 1, 2, 3, ... (WinZip), across batch boundaries and odd-sized calls.
func TestCTRLittleEndian(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	blk, _ := aes.NewCipher(key)
	const n = 3*ctrBlocks*aes.BlockSize + 7
	want := make([]byte, n)
	for i := 0; i*aes.BlockSize < n; i++ {
		var ctr, ks [16]byte
		binary.LittleEndian.PutUint64(ctr[:], uint64(i+1))
		blk.Encrypt(ks[:], ctr[:])
		copy(want[i*aes.BlockSize:], ks[:])
	}
	var c CTR
	if err := c.Reset(key); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	for p, step := 0, 1; p < n; step = step*3 + 1 {
		e := min(p+step, n)
		c.XOR(got[p:e])
		p = e
	}
	if !bytes.Equal(got, want) {
		t.Fatal("key stream differs from AES(little-endian counter from 1)")
	}
	// Reset restarts the counter, with the same key kept.
	c.Reset(key)
	b := make([]byte, 16)
	c.XOR(b)
	if !bytes.Equal(b, want[:16]) {
		t.Error("Reset did not restart the counter")
	}
	if testing.AllocsPerRun(100, func() { c.Reset(key); c.XOR(got) }) != 0 {
		t.Error("Reset with the same key or XOR allocates")
	}
}

// TestZipCryptoRoundTrip: Encrypt and Decrypt are inverse, and the header
// check passes for the right password only (here: for this one wrong one).
func TestZipCryptoRoundTrip(t *testing.T) {
	plain := []byte("The quick brown fox jumps over the lazy dog")
	var h [HeaderLen]byte
	copy(h[:], "random head")
	crc := crc32.ChecksumIEEE(plain)
	h[11] = byte(crc >> 24)
	var k Keys
	k.Init("pw")
	enc := append(h[:], plain...)
	k.Encrypt(enc)
	var d Keys
	d.Init("pw")
	var hh [HeaderLen]byte
	copy(hh[:], enc)
	if !d.CheckHeader(&hh, byte(crc>>24)) {
		t.Fatal("right password fails the check byte")
	}
	body := bytes.Clone(enc[HeaderLen:])
	d.Decrypt(body)
	if !bytes.Equal(body, plain) {
		t.Fatal("round trip differs")
	}
	d.Init("px")
	copy(hh[:], enc)
	if d.CheckHeader(&hh, byte(crc>>24)) {
		t.Error("wrong password passes (a 1-in-256 collision would need another test string)")
	}
}

func BenchmarkCTR(b *testing.B) {
	var c CTR
	c.Reset(make([]byte, 32))
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		c.XOR(buf)
	}
}

func BenchmarkZipCrypto(b *testing.B) {
	var k Keys
	k.Init("password")
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		k.Decrypt(buf)
	}
}

// TestDeriveAllocs: a reused HMAC derives a WinZip key and is keyed for
// the entry's MAC without allocating (crypto/pbkdf2 and crypto/hmac took
// about 1.3 KiB per entry).
func TestDeriveAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	var h hmacx.HMAC
	salt := []byte("0123456789abcdef")
	DeriveWith(&h, "SECRET", salt, 32) // first use makes the SHA-1 states
	mac := make([]byte, 0, sha1.Size)
	k := new(DerivedKey) // where zip keeps it: in the pooled decryptor
	allocs := testing.AllocsPerRun(5, func() {
		*k, _ = DeriveWith(&h, "SECRET", salt, 32)
		h.SetKey(k.MAC[:k.N])
		h.Write(salt)
		mac = h.Sum(mac[:0])
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per derivation", allocs)
	}
}

// BenchmarkDerive: one WinZip AES-256 key derivation (1000 rounds), ours
// with a reused HMAC against crypto/pbkdf2.
func BenchmarkDerive(b *testing.B) {
	salt := []byte("0123456789abcdef")
	b.Run("unarc", func(b *testing.B) {
		b.ReportAllocs()
		var h hmacx.HMAC
		for b.Loop() {
			DeriveWith(&h, "SECRET", salt, 32)
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pbkdf2.Key(sha1.New, "SECRET", salt, Rounds, 66)
		}
	})
}

// TestRewind: rewinding the keys over the ciphertext they deciphered
// gives back the keys at every earlier byte, and a sealed state opens
// to the keys only with the same data keys and position.
func TestRewind(t *testing.T) {
	var k Keys
	k.Init("seek")
	ct := make([]byte, 3000)
	for i := range ct {
		ct[i] = byte(i*131 + i>>3)
	}
	states := make([]Keys, len(ct)+1)
	d := k
	for i := range ct {
		states[i] = d
		b := []byte{ct[i]}
		d.Decrypt(b)
	}
	states[len(ct)] = d
	for _, at := range []int{0, 1, 17, 1000, 2999, 3000} {
		r := d
		r.Rewind(ct[at:])
		if r != states[at] {
			t.Fatalf("rewound to %d: %+v, want %+v", at, r, states[at])
		}
	}
	s := states[1000].SealState(&k, 1000)
	var o Keys
	o.OpenState(s, &k, 1000)
	if o != states[1000] {
		t.Fatal("sealed state does not open")
	}
	if [StateLen]byte{0: byte(states[1000].k0)} == s {
		t.Fatal("state not masked")
	}
	for _, bad := range []func() Keys{
		func() (x Keys) { x.OpenState(s, &k, 1001); return },
		func() (x Keys) { other := k; other.k1++; x.OpenState(s, &other, 1000); return },
	} {
		if bad() == states[1000] {
			t.Fatal("sealed state opens with another position or key")
		}
	}
}
