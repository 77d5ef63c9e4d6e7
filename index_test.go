package unarc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// indexOf opens b, returns its marshalled index (with opts) and the
// entries' contents.
func indexOf(t *testing.T, b []byte, open []Option, opts ...IndexOption) ([]byte, []Entry, [][]byte) {
	t.Helper()
	a, err := Open(bytes.NewReader(b), int64(len(b)), open...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	idx, err := a.Index(opts...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var ents []Entry
	var data [][]byte
	for _, e := range a.Entries() {
		var c []byte
		if hasData(e) {
			c = readEntry(t, a, e)
		}
		ents = append(ents, *e) // after reading: a 7z symlink's target is filled in then
		data = append(data, c)
	}
	return m, ents, data
}

// sameListing checks that a lists exactly ents (every Entry field) with
// contents data.
func sameListing(t *testing.T, a *Archive, ents []Entry, data [][]byte) {
	t.Helper()
	got := a.Entries()
	if len(got) != len(ents) {
		t.Fatalf("%d entries, want %d", len(got), len(ents))
	}
	for i, e := range got {
		if hasData(e) {
			if c := readEntry(t, a, e); !bytes.Equal(c, data[i]) {
				t.Errorf("%s: content differs", e.Name)
			}
		}
		if !reflect.DeepEqual(*e, ents[i]) {
			t.Errorf("entry %d: %+v\nwant %+v", i, *e, ents[i])
		}
	}
}

// TestIndexRoundTrip: a 7z reopened from its marshalled index lists the
// same entries (every field) with the same contents, and the index of
// the reopened archive is byte-identical to the first.
func TestIndexRoundTrip(t *testing.T) {
	for _, name := range []string{"verify/verify.7z", "7z/aes_lzma2_he.7z", "7z/bzip2.7z",
		"verify/verify.zip", "zip/crypt/7zz-AES256-deflate.zip", "zip/crypt/infozip-zipcrypto-stream.zip",
		"zip/sfx-unadjusted.zip", "zip/infozip-zip64.zip", "zip/infozip-comments.zip", "zip/7zz-utf8-ntfs.zip"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			pw := []Option{WithPassword("secret")}
			if strings.HasPrefix(name, "zip/crypt/") {
				pw = []Option{WithPassword("SECRET")}
			}
			m, ents, data := indexOf(t, b, pw)
			idx, err := ParseIndex(m)
			if err != nil {
				t.Fatal(err)
			}
			if idx.Format() != a0format(name) || idx.Size() != int64(len(b)) || idx.HasKeys() {
				t.Fatalf("format %q size %d keys %v", idx.Format(), idx.Size(), idx.HasKeys())
			}
			a, err := Open(bytes.NewReader(b), int64(len(b)), append(pw, WithIndex(idx))...)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			sameListing(t, a, ents, data)
			again, err := a.Index()
			if err != nil {
				t.Fatal(err)
			}
			m2, _ := again.MarshalBinary()
			if !bytes.Equal(m, m2) {
				t.Errorf("the reopened archive's index differs")
			}
			var u Index
			if err := u.UnmarshalBinary(m); err != nil || !reflect.DeepEqual(&u, idx) {
				t.Errorf("UnmarshalBinary: %v", err)
			}
		})
	}
}

func a0format(name string) string {
	if strings.HasSuffix(name, ".zip") {
		return "zip"
	}
	return "7z"
}

// TestIndexUnsupported: an incomplete archive (a RAR set whose second
// volume is missing) is not indexed.
func TestIndexUnsupported(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "rar", "rar5_vol.part1.rar"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Index(); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Index of a set without its second volume: %v", err)
	}
}

// TestIndexTampered: every flipped byte of an index, a one-byte change of
// the archive, and another archive of the same size are rejected with
// ErrStaleIndex (which matches ErrCorrupt).
func TestIndexTampered(t *testing.T) {
	for _, name := range []string{"verify.7z", "verify.zip", "verify-rar5.rar", "verify-rar4.rar"} {
		t.Run(name, func(t *testing.T) { testIndexTampered(t, name) })
	}
}

func testIndexTampered(t *testing.T, name string) {
	b, err := os.ReadFile(filepath.Join("testdata", "verify", name))
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := indexOf(t, b, nil)
	for i := range m {
		c := bytes.Clone(m)
		c[i] ^= 0x01
		if _, err := ParseIndex(c); !errors.Is(err, ErrStaleIndex) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	if _, err := ParseIndex(m[:len(m)-1]); !errors.Is(err, ErrStaleIndex) {
		t.Fatalf("cut index: %v", err)
	}
	idx, err := ParseIndex(m)
	if err != nil {
		t.Fatal(err)
	}
	// One byte of the archive changed: in the header (at the end), in
	// the middle, in the signature header.
	for _, off := range []int{len(b) - 5, len(b) / 2, 20} {
		c := bytes.Clone(b)
		c[off] ^= 0x40
		if _, err := Open(bytes.NewReader(c), int64(len(c)), WithIndex(idx)); !errors.Is(err, ErrStaleIndex) {
			t.Errorf("archive byte %d changed: %v", off, err)
		}
	}
	if _, err := Open(bytes.NewReader(b[:len(b)-1]), int64(len(b)-1), WithIndex(idx)); !errors.Is(err, ErrStaleIndex) {
		t.Errorf("shorter archive: %v", err)
	}
	// Not an index at all, and an index that another format claims.
	if _, err := ParseIndex([]byte("unarcIDX")); !errors.Is(err, ErrStaleIndex) {
		t.Errorf("short: %v", err)
	}
}

// TestIndexOtherArchiveSameSize: the index of one archive does not open
// another of the same size (7zz -mx0 over a file of the same length and
// time, other bytes).
func TestIndexOtherArchiveSameSize(t *testing.T) {
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	dir := t.TempDir()
	mk := func(name, content string) []byte {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(p, "f.txt")
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tm := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		os.Chtimes(f, tm, tm)
		out := filepath.Join(dir, name+".7z")
		if o, err := exec.Command("7zz", "a", "-t7z", "-mx0", "-mtc=off", "-mta=off", out, f).CombinedOutput(); err != nil {
			t.Fatalf("7zz: %v\n%s", err, o)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	x := mk("x", "aaaaaaaaaaaaaaaa")
	y := mk("y", "bbbbbbbbbbbbbbbb")
	if len(x) != len(y) || bytes.Equal(x, y) {
		t.Fatalf("7zz archives of %d and %d bytes", len(x), len(y))
	}
	mx, _, _ := indexOf(t, x, nil)
	ix, err := ParseIndex(mx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bytes.NewReader(y), int64(len(y)), WithIndex(ix)); !errors.Is(err, ErrStaleIndex) {
		t.Errorf("index of x over y (same size): %v", err)
	}
	if _, err := Open(bytes.NewReader(x), int64(len(x)), WithIndex(ix)); err != nil {
		t.Errorf("index of x over x: %v", err)
	}
}

// make7zEncrypted writes n small files and packs them with 7zz, headers
// encrypted (AES-256, 7-Zip's 2^19 key derivation rounds).
func make7zEncrypted(t *testing.T, n int, pw string) []byte {
	t.Helper()
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for i := 0; i < n; i++ {
		p := filepath.Join(src, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("file-%04d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("content of file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "enc.7z")
	cmd := exec.Command("7zz", "a", "-t7z", "-mx1", "-mmt1", "-mhe=on", "-p"+pw, out, ".")
	cmd.Dir = src
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz: %v\n%s", err, o)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestIndexEncrypted7z is issue 18's done-when: a 1,000-entry
// header-encrypted 7z (AES, 2^19 rounds) reopened with its index (with
// keys) lists in under 1 ms and derives no key — counted: the reopened
// archive's MaxKDFRounds is 1, so any derivation fails with ErrLimit,
// and the password callback is never asked. Without keys the listing
// still needs nothing, and reading asks for the password and derives
// the key again.
func TestIndexEncrypted7z(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a 1,000-file archive with 7zz and derives a 2^19-round key")
	}
	const n, pw = 1000, "index-secret"
	b := make7zEncrypted(t, n, pw)
	asked := 0
	counting := WithPasswordFunc(func(*Entry) (string, error) { asked++; return pw, nil })
	withKeys, ents, data := indexOf(t, b, []Option{counting}, IndexWithKeys())
	if asked != 1 {
		t.Fatalf("first open asked %d times for the password", asked)
	}
	files := 0
	for _, e := range ents {
		if !e.IsDir() {
			files++
		}
	}
	if files != n {
		t.Fatalf("%d files", files)
	}
	noKDF := WithLimits(Limits{MaxKDFRounds: 1})
	asked = 0
	best := time.Hour
	for i := 0; i < 20; i++ {
		start := time.Now()
		idx, err := ParseIndex(withKeys)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(b), int64(len(b)), WithIndex(idx), counting, noKDF)
		if err != nil {
			t.Fatal(err)
		}
		cnt := 0
		for _, e := range a.Entries() {
			if e.Name != "" {
				cnt++
			}
		}
		best = min(best, time.Since(start))
		if i == 0 {
			sameListing(t, a, ents, data) // reads every entry: with the stored key
		}
		a.Close()
		if cnt != len(ents) {
			t.Fatal(cnt)
		}
	}
	if asked != 0 {
		t.Errorf("reopened with keys: asked %d times for the password", asked)
	}
	t.Logf("parse index (%d bytes) + reopen + list %d entries: best %v", len(withKeys), len(ents), best)
	if !testutil.RaceEnabled && best > time.Millisecond {
		t.Errorf("listing from the index took %v, want < 1 ms", best)
	}

	// Without keys: the index holds none, listing needs no password, and
	// the first read derives the key again.
	noKeys, _, _ := indexOf(t, b, []Option{WithPassword(pw)})
	if bytes.Contains(noKeys, []byte(pw)) {
		t.Fatal("the index holds the password")
	}
	idx, err := ParseIndex(noKeys)
	if err != nil || idx.HasKeys() {
		t.Fatal(err)
	}
	asked = 0
	a, err := Open(bytes.NewReader(b), int64(len(b)), WithIndex(idx), counting, noKDF)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.Entries()) != len(ents) || asked != 0 {
		t.Fatalf("%d entries, asked %d", len(a.Entries()), asked)
	}
	var file *Entry
	for _, e := range a.Entries() {
		if !e.IsDir() {
			file = e
			break
		}
	}
	rc, err := a.OpenEntry(file)
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
	}
	if !errors.Is(err, ErrLimit) || asked == 0 {
		t.Fatalf("read without stored keys under MaxKDFRounds 1: %v (asked %d); want the KDF to run and hit the limit", err, asked)
	}
	a2, err := Open(bytes.NewReader(b), int64(len(b)), WithIndex(idx), counting)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	res, err := a2.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Status != VerifyOK && r.Status != VerifySkipped {
			t.Fatalf("%s: %v %v", r.Entry.Name, r.Status, r.Err)
		}
	}
}

// fileIndex opens path with OpenFile (volumes beside it), returns its
// marshalled index and the entries with their contents.
func fileIndex(t *testing.T, path string, open []Option, opts ...IndexOption) ([]byte, []Entry, [][]byte) {
	t.Helper()
	a, err := OpenFile(path, open...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var ents []Entry
	var data [][]byte
	for _, e := range a.Entries() {
		var c []byte
		if hasData(e) {
			c = readEntry(t, a, e)
		}
		ents = append(ents, *e)
		data = append(data, c)
	}
	// After the reads: keys derived for entry data (-p) are known then.
	idx, err := a.Index(opts...)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := idx.MarshalBinary()
	return m, ents, data
}

// TestIndexRoundTripFiles: RAR (RAR4 and RAR5, solid, volumes, encrypted
// data and headers, file copies, links, file versions), 7z and ZIP
// archives reopened from their index list the same entries with the same
// contents. With IndexWithKeys (made after reading, so data keys are
// known), the encrypted ones reopen and read with no password and no key
// derivation (MaxKDFRounds 1 fails any).
func TestIndexRoundTripFiles(t *testing.T) {
	for _, name := range []string{
		"verify/verify-rar5.rar", "verify/verify-rar4.rar", "rar/rar5_solid.rar", "rar/rar4_solid.rar",
		"rar/rar5_vol.part1.rar", "rar/rar4_vol.part1.rar", "rar/rar4_oldvol.rar", "rar/rar5_blake_vol.part1.rar",
		"rar/rar5_pw.rar", "rar/rar5_pw_blake.rar", "rar/rar5_hp_solid.rar", "rar/rar5_hp_vol.part1.rar",
		"rar/rar5_pw_blake_vol.part1.rar", "rar/rar4_pw.rar", "rar/rar4_hp.rar", "rar/rar4_hp_stored.rar",
		"rar/rar5_copy.rar", "rar/rar5_links.rar", "rar/rar4_links.rar", "rar/rar5_comment.rar", "rar/rar4_comment.rar",
		"rar/rar5_locked.rar", "rar/rar5_rr.rar", "rar/rar5_qo.rar", "rarcontract/versions5.rar",
		"rarcontract/volset.part1.rar", "rarcontract/volsetr4.part1.rar", "rar29/ppmd_solid.rar",
		"7z/aes_lzma2_he.7z", "zip/crypt/7zz-AES256-deflate.zip",
		"seek/copy-aes.7z", "seek/lzma2-aes.7z", "seek/lzma-big-aes.7z",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			pw := "test"
			switch {
			case strings.HasPrefix(name, "seek/"):
				pw = "seek"
			case strings.HasSuffix(name, ".7z"):
				pw = "secret"
			case strings.HasSuffix(name, ".zip"):
				pw = "SECRET"
			}
			open := []Option{WithPassword(pw)}
			m, ents, data := fileIndex(t, path, open)
			idx, err := ParseIndex(m)
			if err != nil {
				t.Fatal(err)
			}
			a, err := OpenFile(path, append(open, WithIndex(idx))...)
			if err != nil {
				t.Fatal(err)
			}
			sameListing(t, a, ents, data)
			again, err := a.Index()
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
			if m2, _ := again.MarshalBinary(); !bytes.Equal(m, m2) {
				t.Errorf("the reopened archive's index differs")
			}
			encrypted := false
			for _, e := range ents {
				encrypted = encrypted || e.Encrypted
			}
			if !encrypted || strings.HasSuffix(name, ".zip") || name == "rar/rar4_pw.rar" {
				// ZIP stores no keys (per-entry salts); RAR 2.9-4 data
				// keys without encrypted headers are never proven right
				// (no check value), so none is stored.
				return
			}
			mk, _, _ := fileIndex(t, path, open, IndexWithKeys())
			idx, err = ParseIndex(mk)
			if err != nil {
				t.Fatal(err)
			}
			asked := 0
			a, err = OpenFile(path, WithIndex(idx), WithLimits(Limits{MaxKDFRounds: 1}),
				WithPasswordFunc(func(*Entry) (string, error) { asked++; return pw, nil }))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			sameListing(t, a, ents, data)
			// Offset reads build their decoders apart from Open: they
			// take the stored keys too.
			readAtHalves(t, a, data)
			if asked != 0 {
				t.Errorf("asked %d times for the password with stored keys", asked)
			}
		})
	}
}
