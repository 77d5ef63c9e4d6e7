package hmacx

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestHMACMatchesStdlib compares HMAC with crypto/hmac for key lengths
// around the block size (longer keys are hashed first) and messages of
// odd lengths, with the same HMAC keyed again and again.
func TestHMACMatchesStdlib(t *testing.T) {
	for _, hf := range []func() hash.Hash{sha1.New, sha256.New} {
		testHMACMatches(t, hf)
	}
}

func testHMACMatches(t *testing.T, hf func() hash.Hash) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	h := HMAC{New: hf}
	for kl := 0; kl <= 200; kl++ {
		key := buf[:kl]
		ml := rng.IntN(len(buf))
		msg := buf[len(buf)-ml:]
		ref := hmac.New(hf, key)
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
	for _, hf := range []func() hash.Hash{sha1.New, sha256.New} {
		testPBKDF2Matches(t, hf)
	}
}

func testPBKDF2Matches(t *testing.T, hf func() hash.Hash) {
	h := HMAC{New: hf}
	for _, pw := range []string{"", "p", "SECRET", string(bytes.Repeat([]byte("long password "), 9))} {
		for _, n := range []int{1, 20, 21, 34, 50, 66} {
			want, err := pbkdf2.Key(hf, pw, []byte("saltsaltsaltsalt"), 17, n)
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

// TestReuseAllocs: once keyed, re-keying and MACs allocate nothing
// (crypto/hmac took about 600 bytes per key).
func TestReuseAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	for _, hf := range []func() hash.Hash{sha1.New, sha256.New} {
		h := HMAC{New: hf}
		key := []byte("0123456789abcdef0123456789abcdef")
		h.SetKey(key)
		out := make([]byte, 0, 32)
		u := make([]byte, h.Size())
		allocs := testing.AllocsPerRun(5, func() {
			h.SetKeyString("SECRET")
			h.Block(key, 1, u)
			h.Next(u)
			h.SetKey(key)
			h.Write(key)
			out = h.Sum(out[:0])
		})
		if allocs != 0 {
			t.Fatalf("%v allocations", allocs)
		}
	}
}
