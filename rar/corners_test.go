package rar

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// readEveryEntry reads every entry of the archive at path through Archive
// and through Reader, returning the contents by name (Archive) and the
// first error of either API.
func readEveryEntry(t *testing.T, path, pw string) (map[string][]byte, error) {
	t.Helper()
	a, err := openPath(t, path, pw)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	got := map[string][]byte{}
	for i, e := range a.Entries() {
		b, err := readAll(a, i)
		if err != nil {
			return nil, err
		}
		got[e.Name] = b
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f, config(t, path, pw))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	n := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n++
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(b, got[e.Name]) {
			t.Errorf("Reader %s: content differs from Archive's", e.Name)
		}
	}
	if n != len(a.Entries()) {
		t.Errorf("Reader saw %d entries, Archive %d", n, len(a.Entries()))
	}
	return got, nil
}

// TestSplitEncrypted5: a RAR5 file split across volumes keeps, in each
// non-last part, the hash of that part's packed data and, in the last
// part, the hash of the whole file; with -p the last one is a MAC (its
// encryption record has the hash-MAC flag, the first part's has not).
// Both APIs must verify the whole-file hash of the last part, converted
// with the hash key when the last part says so (as unrar's
// FileHead.UseHashKey at the end of extraction). rand28k.bin is 28 KiB of
// AES-CTR keystream (testdata/rar/make.sh), cut by -v20k.
func TestSplitEncrypted5(t *testing.T) {
	want := aesCTRZeros(28672, 1)
	for _, name := range []string{"rar5_pw_vol.part1.rar", "rar5_hp_vol.part1.rar", "rar5_pw_blake_vol.part1.rar", "rar5_blake_vol.part1.rar"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(testdata, name)
			got, err := readEveryEntry(t, path, testPassword(name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got["rand28k.bin"], want) {
				t.Errorf("rand28k.bin: %d bytes, not the input", len(got["rand28k.bin"]))
			}
			if string(got["after.txt"]) != "after the split file\n" {
				t.Errorf("after.txt: %q", got["after.txt"])
			}
			if testPassword(name) == "" {
				return
			}
			// A wrong password is still a wrong password, never data.
			_, err = readEveryEntry(t, path, "wrong")
			if !errors.Is(err, errs.ErrPassword) {
				t.Errorf("wrong password: %v, want ErrPassword", err)
			}
		})
	}
}

// aesCTRZeros is what `head -c n /dev/zero | openssl enc -aes-128-ctr
// -K 00112233445566778899aabbccddeeff -iv 0…0<iv>` writes (make.sh).
func aesCTRZeros(n int, iv byte) []byte {
	key := []byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	b, _ := aes.NewCipher(key)
	ivb := make([]byte, 16)
	ivb[15] = iv
	out := make([]byte, n)
	cipher.NewCTR(b, ivb).XORKeyStream(out, out)
	return out
}

var _ = arc.Entry{}
