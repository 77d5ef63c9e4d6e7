package zip

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

const cryptPassword = "SECRET"

// cryptInputs is what testdata/zip/crypt/make.sh archives, rebuilt here.
func cryptInputs() map[string][]byte {
	var text bytes.Buffer
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&text, "line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	var rnd []byte
	for i := 0; i < 64; i++ {
		h := sha256.Sum256([]byte(fmt.Sprintf("rand%d", i)))
		rnd = append(rnd, h[:]...)
	}
	return map[string][]byte{
		"hello.txt":      []byte("hello, world\n"),
		"text.txt":       text.Bytes(),
		"rand.bin":       rnd,
		"dir/nested.txt": []byte("nested\n"),
	}
}

func cryptArchives(t *testing.T) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("../testdata/zip/crypt/*.zip")
	if err != nil || len(names) < 14 {
		t.Fatalf("encrypted test archives missing (%d found, %v)", len(names), err)
	}
	m := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(n)] = b
	}
	return m
}

func pwConfig(pw string) *arc.Config {
	return &arc.Config{Password: func(*arc.Entry) (string, error) { return pw, nil }}
}

// checkGot compares what was read with the make.sh inputs.
func checkGot(t *testing.T, what string, g *got) {
	t.Helper()
	if g.openErr != nil {
		t.Errorf("%s: %v", what, g.openErr)
		return
	}
	for _, e := range g.errs {
		t.Errorf("%s: %v", what, e)
	}
	want := cryptInputs()
	for name, data := range want {
		h := sha256.Sum256(data)
		if !bytes.Equal(g.files[name], h[:]) {
			t.Errorf("%s: %s: content differs (got %d bytes)", what, name, g.sizes[name])
		}
	}
	if len(g.files) != len(want) {
		t.Errorf("%s: %d files, want %d", what, len(g.files), len(want))
	}
}

// TestCryptArchives reads every archive that zip, 7zz and bsdtar made
// with a password through the Archive and the forward Reader (whole
// reads, one byte at a time, and WriteTo).
func TestCryptArchives(t *testing.T) {
	for name, data := range cryptArchives(t) {
		checkGot(t, name+" (Archive)", readArchive(data, pwConfig(cryptPassword)))
		checkGot(t, name+" (Reader)", readStream(data, pwConfig(cryptPassword), func(r io.Reader) io.Reader { return onlyReader{r} }))
		checkGot(t, name+" (Reader, one byte)", readStream(data, pwConfig(cryptPassword), iotest.OneByteReader))
		checkGot(t, name+" (Reader, WriteTo)", readStreamCopy(data, pwConfig(cryptPassword), func(r io.Reader) io.Reader { return r },
			func(w io.Writer, z *Reader) (int64, error) { return z.WriteTo(w) }))
	}
}

// TestCryptMethodNames: the method shows the encryption and the real method.
func TestCryptMethodNames(t *testing.T) {
	all := cryptArchives(t)
	for name, want := range map[string]string{
		"7zz-AES128-deflate.zip":    "AES-128 (Deflate)",
		"7zz-AES192-deflate.zip":    "AES-192 (Deflate)",
		"7zz-AES256-LZMA.zip":       "AES-256 (LZMA)",
		"7zz-zipcrypto-deflate.zip": "ZipCrypto (Deflate)",
	} {
		a, err := Open(bytes.NewReader(all[name]), int64(len(all[name])), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range a.Entries() {
			found = found || e.Name == "text.txt" && e.Method == want && e.Encrypted
		}
		if !found {
			t.Errorf("%s: no encrypted text.txt with method %q", name, want)
		}
	}
}

// TestCryptWrongPassword: a wrong password fails every entry with
// ErrPassword when it is opened, before any data is decoded, in both APIs.
func TestCryptWrongPassword(t *testing.T) {
	for name, data := range cryptArchives(t) {
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(pwConfig("wrong")))
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range a.Entries() {
			if e.IsDir() {
				continue
			}
			if _, err := a.Open(i); !errors.Is(err, errs.ErrPassword) || errors.Is(err, errs.ErrChecksum) {
				t.Errorf("%s: %s: Open with a wrong password: %v, want ErrPassword", name, e.Name, err)
			}
		}
		z, err := NewReader(bytes.NewReader(data), conf.From(pwConfig("wrong")))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			e, err := z.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: Next: %v", name, err)
			}
			if e.IsDir() {
				continue
			}
			n++
			if _, err := io.Copy(io.Discard, z); !errors.Is(err, errs.ErrPassword) {
				t.Errorf("%s: Reader: %s: %v, want ErrPassword", name, e.Name, err)
			}
		}
		if n != 4 {
			t.Errorf("%s: Reader skipped to the end after %d entries, want 4", name, n)
		}
		z.Close()
	}
}

// TestCryptNoPassword: without a password callback, ErrPasswordRequired.
func TestCryptNoPassword(t *testing.T) {
	data := cryptArchives(t)["7zz-AES256-deflate.zip"]
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Open(0); !errors.Is(err, errs.ErrPasswordRequired) {
		t.Errorf("no password: %v", err)
	}
}

// TestZipCryptoCollision: one wrong password in 256 passes the check
// byte; the data check then fails the entry (ErrChecksum for stored data:
// the CRC; compressed data may already fail to decode, ErrCorrupt), never
// good-looking output.
func TestZipCryptoCollision(t *testing.T) {
	for _, name := range []string{"infozip-zipcrypto.zip", "7zz-zipcrypto-deflate.zip"} {
		data := cryptArchives(t)[name]
		for _, entry := range []string{"rand.bin", "text.txt"} {
			var pw string
			var rc io.ReadCloser
			var err error
			for i := 0; i < 5000; i++ {
				pw = fmt.Sprintf("guess%d", i)
				a, _ := Open(bytes.NewReader(data), int64(len(data)), conf.From(pwConfig(pw)))
				idx := -1
				for j, e := range a.Entries() {
					if e.Name == entry {
						idx = j
					}
				}
				if rc, err = a.Open(idx); err == nil {
					break
				}
				if !errors.Is(err, errs.ErrPassword) {
					t.Fatalf("%s: %s: %v", name, pw, err)
				}
			}
			if rc == nil {
				t.Fatalf("%s: no colliding password found in 5000", name)
			}
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
			if !errors.Is(err, errs.ErrChecksum) && !errors.Is(err, errs.ErrCorrupt) {
				t.Errorf("%s: %s with colliding password %q: %v, want ErrChecksum or ErrCorrupt", name, entry, pw, err)
			}
			if entry == "rand.bin" && !errors.Is(err, errs.ErrChecksum) {
				t.Errorf("%s: stored %s with colliding password %q: %v, want ErrChecksum", name, entry, pw, err)
			}
		}
	}
}

// entryData returns the offset of the first byte after name's local header
// and its packed size (from the local header: these archives have it there
// or in a descriptor, so also the central directory's).
func entryData(t *testing.T, data []byte, name string) (off, csize int) {
	t.Helper()
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.files {
		f := &a.files[i]
		if f.Name == name {
			var hdr [localLen]byte
			o, err := a.dataOffset(f, hdr[:])
			if err != nil {
				t.Fatal(err)
			}
			return int(o), int(f.csize)
		}
	}
	t.Fatalf("no entry %s", name)
	return 0, 0
}

func readEntry(data []byte, name string, cfg *arc.Config) error {
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if err != nil {
		return err
	}
	for i, e := range a.Entries() {
		if e.Name == name {
			rc, err := a.Open(i)
			if err != nil {
				return err
			}
			defer rc.Close()
			_, err = io.Copy(io.Discard, rc)
			return err
		}
	}
	return fmt.Errorf("no entry %s", name)
}

func readEntryStream(data []byte, name string, cfg *arc.Config) error {
	z, err := NewReader(bytes.NewReader(data), conf.From(cfg))
	if err != nil {
		return err
	}
	defer z.Close()
	for {
		e, err := z.Next()
		if err != nil {
			return err
		}
		if e.Name == name {
			_, err = io.Copy(io.Discard, z)
			return err
		}
	}
}

// TestWinZipAESTamper: a flipped ciphertext byte is caught by the MAC
// (ErrChecksum naming the authentication code) whatever the method, even
// where the decoder would fail first; a flipped MAC byte too.
func TestWinZipAESTamper(t *testing.T) {
	all := cryptArchives(t)
	for _, c := range []struct{ archive, entry string }{
		{"7zz-AES256-deflate.zip", "text.txt"},
		{"7zz-AES256-deflate.zip", "rand.bin"},
		{"7zz-AES256-LZMA.zip", "text.txt"},
		{"7zz-AES256-BZip2.zip", "text.txt"},
		{"bsdtar-aes256.zip", "text.txt"},
		{"bsdtar-aes128-store.zip", "rand.bin"},
	} {
		data := all[c.archive]
		off, csize := entryData(t, data, c.entry)
		for _, pos := range []int{off + 18 + 5, off + csize/2, off + csize - 11, off + csize - 1} {
			bad := bytes.Clone(data)
			bad[pos] ^= 0x40
			for api, read := range map[string]func([]byte, string, *arc.Config) error{"Archive": readEntry, "Reader": readEntryStream} {
				err := read(bad, c.entry, pwConfig(cryptPassword))
				if !errors.Is(err, errs.ErrChecksum) || !strings.Contains(fmt.Sprint(err), "authentication code") {
					t.Errorf("%s: %s: %s: byte %d of %d flipped: %v, want the MAC's ErrChecksum", api, c.archive, c.entry, pos-off, csize, err)
				}
			}
		}
	}
}

// TestWinZipAESTruncatedMAC: a stream that ends inside the MAC is
// truncated, not good.
func TestWinZipAESTruncatedMAC(t *testing.T) {
	for _, name := range []string{"7zz-AES256-Copy.zip", "bsdtar-aes256.zip", "bsdtar-aes128-store.zip"} {
		data := cryptArchives(t)[name]
		off, csize := entryData(t, data, "hello.txt")
		if off > 200 {
			// hello.txt must be the first entry for the cut to be inside it.
			off, csize = entryData(t, data, "dir/nested.txt")
		}
		cut := data[:off+csize-4]
		z, err := NewReader(bytes.NewReader(cut), conf.From(pwConfig(cryptPassword)))
		if err != nil {
			t.Fatal(err)
		}
		var last error
		for {
			_, err := z.Next()
			if err != nil {
				if err != io.EOF {
					last = err
				}
				break
			}
			if _, err := io.Copy(io.Discard, z); err != nil {
				last = err
				break
			}
		}
		if !errors.Is(last, errs.ErrTruncated) {
			t.Errorf("%s cut inside a MAC: %v, want ErrTruncated", name, last)
		}
	}
}

// setCRC rewrites the CRC-32 of entry name in its local and central headers.
func setCRC(t *testing.T, data []byte, name string, crc uint32) []byte {
	t.Helper()
	b := bytes.Clone(data)
	n := 0
	for i := 0; i+46 < len(b); i++ {
		switch le.Uint32(b[i:]) {
		case sigLocal:
			nl := int(le.Uint16(b[i+26:]))
			if i+30+nl <= len(b) && string(b[i+30:i+30+nl]) == name {
				le.PutUint32(b[i+14:], crc)
				n++
			}
		case sigCentral:
			nl := int(le.Uint16(b[i+28:]))
			if i+46+nl <= len(b) && string(b[i+46:i+46+nl]) == name {
				le.PutUint32(b[i+16:], crc)
				n++
			}
		}
	}
	if n != 2 {
		t.Fatalf("%s: patched %d headers, want 2", name, n)
	}
	return b
}

// TestWinZipAE1AE2: AE-1 entries check the CRC as well as the MAC; AE-2
// entries store no CRC and the MAC is their only check.
func TestWinZipAE1AE2(t *testing.T) {
	data := cryptArchives(t)["bsdtar-aes128-store.zip"] // text.txt is AE-1, hello.txt AE-2
	a, _ := Open(bytes.NewReader(data), int64(len(data)), nil)
	for _, e := range a.Entries() {
		f := a.files[e.Index]
		if e.Name == "text.txt" && f.aesVer != 1 || e.Name == "hello.txt" && f.aesVer != 2 {
			t.Fatalf("%s: AE-%d", e.Name, f.aesVer)
		}
		if f.aesVer == 2 && (e.HasCRC32 || e.HashKind != "HMAC-SHA1-80") {
			t.Errorf("AE-2 %s: HasCRC32 %v, HashKind %q; want the MAC as its check", e.Name, e.HasCRC32, e.HashKind)
		}
		if !e.Verifiable() {
			t.Errorf("%s (AE-%d) not verifiable", e.Name, f.aesVer)
		}
	}
	bad := setCRC(t, data, "text.txt", 0x12345678)
	if err := readEntry(bad, "text.txt", pwConfig(cryptPassword)); !errors.Is(err, errs.ErrChecksum) || !strings.Contains(err.Error(), "CRC") {
		t.Errorf("AE-1 with a wrong CRC: %v, want the CRC's ErrChecksum", err)
	}
	bad = setCRC(t, data, "hello.txt", 0x12345678)
	if err := readEntry(bad, "hello.txt", pwConfig(cryptPassword)); err != nil {
		t.Errorf("AE-2 with a CRC field set: %v (the field is not used)", err)
	}
}

// TestWinZipKDFBudget: each distinct (salt, password) derivation is
// charged to the archive's Budget; a cache hit is free, so reopening an
// entry costs nothing, and a small MaxKDFRounds stops an archive with one
// salt per entry.
func TestWinZipKDFBudget(t *testing.T) {
	data := cryptArchives(t)["7zz-AES256-deflate.zip"] // 7zz: one salt per entry
	lim := arc.Limits{MaxKDFRounds: 2 * zipcrypto.Rounds}
	cfg := pwConfig(cryptPassword)
	cfg.Limits = lim
	cfg.Budget = conf.NewBudget(conf.MustLimits(lim))
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	var files []int
	for i, e := range a.Entries() {
		if !e.IsDir() {
			files = append(files, i)
		}
	}
	for k := 0; k < 5; k++ { // the same two entries again and again: cached
		for _, i := range files[:2] {
			rc, err := a.Open(i)
			if err != nil {
				t.Fatalf("open %d (round %d): %v", i, k, err)
			}
			rc.Close()
		}
	}
	if _, err := a.Open(files[2]); !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "MaxKDFRounds") {
		t.Errorf("third salt: %v, want ErrLimit naming MaxKDFRounds", err)
	}
	// Without a Budget in the config the archive keeps its own.
	cfg.Budget = nil
	a, _ = Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	var last error
	for _, i := range files {
		if _, err := a.Open(i); err != nil {
			last = err
		}
	}
	if !errors.Is(last, errs.ErrLimit) {
		t.Errorf("own budget: %v, want ErrLimit", last)
	}
	// The Reader charges the same way.
	cfg.Budget = conf.NewBudget(conf.MustLimits(lim))
	z, _ := NewReader(bytes.NewReader(data), conf.From(cfg))
	defer z.Close()
	last = nil
	for n := 0; ; n++ {
		_, err := z.Next()
		if err != nil {
			break
		}
		if _, err := io.Copy(io.Discard, z); err != nil {
			last = err
			break
		}
	}
	if !errors.Is(last, errs.ErrLimit) {
		t.Errorf("Reader: %v, want ErrLimit", last)
	}
}

// TestWinZipKDFKnownAnswer: PBKDF2-HMAC-SHA1 against RFC 6070, and the
// derivation against the verifier 7zz stored for the password SECRET.
func TestWinZipKDFKnownAnswer(t *testing.T) {
	data := cryptArchives(t)["7zz-AES256-deflate.zip"]
	off, _ := entryData(t, data, "text.txt")
	salt, verifier := data[off:off+16], data[off+16:off+18]
	k, err := zipcrypto.Derive(cryptPassword, salt, 32)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(k.Verifier[:], verifier) {
		t.Errorf("verifier %x, 7zz stored %x", k.Verifier, verifier)
	}
	if k2, _ := zipcrypto.Derive("SECRET!", salt, 32); bytes.Equal(k2.Verifier[:], verifier) && k2.Enc == k.Enc {
		t.Error("another password derives the same key")
	}
}

// TestStrongCorpus: PKWARE strong encryption (AES-256, the corpus archive
// libarchive ships): right password reads, wrong password is ErrPassword
// before decoding, and what we do not implement says what it is.
func TestStrongCorpus(t *testing.T) {
	dir := testutil.CorpusDir(t)
	data := loadCorpus(t, dir, "zip/libarchive/test_read_format_zip_encryption_data.zip")
	if err := readEntry(data, "bar.txt", pwConfig("12345678")); err != nil {
		t.Errorf("right password: %v", err)
	}
	if err := readEntryStream(data, "foo.txt", pwConfig("12345678")); err != nil {
		t.Errorf("right password, Reader: %v", err)
	}
	if err := readEntry(data, "bar.txt", pwConfig("1234567")); !errors.Is(err, errs.ErrPassword) {
		t.Errorf("wrong password: %v", err)
	}
	a, _ := Open(bytes.NewReader(data), int64(len(data)), nil)
	if m := a.Entries()[0].Method; m != "PKWARE strong encryption AES-256 (Store)" {
		t.Errorf("method %q", m)
	}
	off, _ := entryData(t, data, "bar.txt")
	// The decryption header: IV size, IV, size, then format(2) alg(2) bits(2) flags(2).
	iv := int(le.Uint16(data[off:]))
	h := off + 2 + iv + 4
	for _, c := range []struct {
		at   int
		val  uint16
		want string
	}{
		{h + 2, zipcrypto.Alg3DES, "3DES-168"},
		{h + 2, zipcrypto.AlgRC4, "RC4"},
		{h + 6, 0x0003, "certificate"},
	} {
		bad := bytes.Clone(data)
		le.PutUint16(bad[c.at:], c.val)
		err := readEntry(bad, "bar.txt", pwConfig("12345678"))
		if !errors.Is(err, errs.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrUnsupported naming it", c.want, err)
		}
	}
	// The 0x0017 extra announces the algorithm before anything is read.
	bad := bytes.Clone(data)
	for i := 0; i+8 < len(bad); i++ {
		if le.Uint16(bad[i:]) == extraStrong && le.Uint16(bad[i+2:]) == 12 && le.Uint16(bad[i+6:]) == zipcrypto.AlgAES256 {
			le.PutUint16(bad[i+6:], zipcrypto.Alg3DES)
		}
	}
	if err := readEntry(bad, "bar.txt", pwConfig("12345678")); !errors.Is(err, errs.ErrUnsupported) || !strings.Contains(err.Error(), "3DES") {
		t.Errorf("3DES in the extra field: %v", err)
	}
}

// TestCryptAllocs: decryption allocates nothing per entry once the pools
// are warm: ZipCrypto never, and WinZip AES nothing beyond a new key's
// derivation and cipher (a cached key, as when an entry is opened again,
// reuses the pooled cipher and MAC). What remains is the handle Open
// returns and, for decoders that write from their window, the writer
// crc32x boxes per WriteTo (as for unencrypted entries).
func TestCryptAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	all := cryptArchives(t)
	for _, c := range []struct{ archive, entry string }{
		{"7zz-zipcrypto-deflate.zip", "text.txt"},
		{"7zz-zipcrypto-deflate.zip", "rand.bin"},
		{"infozip-zipcrypto.zip", "text.txt"},
		{"7zz-AES256-deflate.zip", "text.txt"},
		{"7zz-AES256-Copy.zip", "rand.bin"},
		{"bsdtar-aes256.zip", "text.txt"},
	} {
		data := all[c.archive]
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(pwConfig(cryptPassword)))
		if err != nil {
			t.Fatal(err)
		}
		idx := -1
		for i, e := range a.Entries() {
			if e.Name == c.entry {
				idx = i
			}
		}
		run := func() {
			rc, err := a.Open(idx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, rc); err != nil {
				t.Fatal(err)
			}
			rc.Close()
		}
		run()
		if n := testing.AllocsPerRun(50, run); n > 2 {
			t.Errorf("%s: %s: %.1f allocations per warm open and read, want at most 2 (the handle, crc32x's writer)", c.archive, c.entry, n)
		}
	}
}
