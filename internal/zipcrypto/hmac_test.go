package zipcrypto

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"math/rand/v2"
	"testing"
)

// TestHMACMatchesStdlib compares HMAC with crypto/hmac for key lengths
// around the block size (longer keys are hashed first) and messages of
// odd lengths, with the same HMAC keyed again and again.
func TestHMACMatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	var h HMAC
	for kl := 0; kl <= 200; kl++ {
		key := buf[:kl]
		ml := rng.IntN(len(buf))
		msg := buf[len(buf)-ml:]
		ref := hmac.New(sha1.New, key)
		ref.Write(msg)
		want := ref.Sum(nil)
		if kl%2 == 0 {
			h.SetKey(key)
		} else {
			h.SetKeyString(string(key))
		}
		h.Write(msg[:ml/2])
		h.Write(msg[ml/2:])
		if got := h.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("key %d, message %d bytes: %x want %x", kl, ml, got, want)
		}
		if got := h.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("key %d: a second Sum gives %x", kl, got)
		}
		h.Reset()
		h.Write(msg)
		if got := h.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("key %d after Reset: %x want %x", kl, got, want)
		}
	}
}

// TestPBKDF2MatchesStdlib compares the derivation with crypto/pbkdf2 for
// long passwords, empty ones and outputs of several blocks.
func TestPBKDF2MatchesStdlib(t *testing.T) {
	var h HMAC
	for _, pw := range []string{"", "p", "SECRET", string(bytes.Repeat([]byte("long password "), 9))} {
		for _, n := range []int{1, 20, 21, 34, 50, 66} {
			want, err := pbkdf2.Key(sha1.New, pw, []byte("saltsaltsaltsalt"), 17, n)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, n)
			h.PBKDF2(pw, []byte("saltsaltsaltsalt"), 17, got)
			if !bytes.Equal(got, want) {
				t.Fatalf("password %d bytes, %d out: %x want %x", len(pw), n, got, want)
			}
		}
	}
}

// TestDeriveAllocs: a reused HMAC derives a WinZip key and is keyed for
// the entry's MAC without allocating (crypto/pbkdf2 and crypto/hmac took
// about 1.3 KiB per entry).
func TestDeriveAllocs(t *testing.T) {
	var h HMAC
	salt := []byte("0123456789abcdef")
	h.Derive("SECRET", salt, 32) // first use makes the SHA-1 states
	mac := make([]byte, 0, sha1.Size)
	allocs := testing.AllocsPerRun(5, func() {
		k, _ := h.Derive("SECRET", salt, 32)
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
		var h HMAC
		for b.Loop() {
			h.Derive("SECRET", salt, 32)
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pbkdf2.Key(sha1.New, "SECRET", salt, Rounds, 66)
		}
	})
}
