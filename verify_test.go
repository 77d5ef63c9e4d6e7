package unarc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/internal/blake2sp"
	"github.com/go-unarc/unarc/internal/testutil"
)

// readSums parses b3sum / sha256sum output: name -> hex digest.
func readSums(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "verify", name))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, file, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("%s: bad line %q", name, line)
		}
		m[file] = sum
	}
	return m
}

func openTestdata(t *testing.T, name string) *Archive {
	t.Helper()
	a, err := OpenFile(filepath.Join("testdata", "verify", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestVerifyDigests: every entry of a real archive per format verifies
// OK, and the BLAKE3/SHA-256 that Verify computes while decoding equal
// both the b3sum/sha256sum output the script committed and the test's
// own hashes of the extracted bytes; the stored digests are reported in
// full (RAR5: all 32 bytes of BLAKE2sp).
func TestVerifyDigests(t *testing.T) {
	b3 := readSums(t, "b3sums.txt")
	sha := readSums(t, "sha256sums.txt")
	for _, name := range []string{"verify.zip", "verify-rar5.rar", "verify-rar4.rar", "verify.7z"} {
		t.Run(name, func(t *testing.T) {
			a := openTestdata(t, name)
			res, err := a.Verify(context.Background(), WithDigests(DigestBLAKE3|DigestSHA256))
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(a.Entries()) {
				t.Fatalf("%d results for %d entries", len(res), len(a.Entries()))
			}
			files := 0
			for i, r := range res {
				e := r.Entry
				if e != a.Entries()[i] {
					t.Fatalf("result %d is for %q, not entry %d", i, e.Name, i)
				}
				if e.IsDir() {
					if r.Status != VerifySkipped {
						t.Errorf("%s: directory status %v", e.Name, r.Status)
					}
					continue
				}
				files++
				if r.Status != VerifyOK || r.Err != nil {
					t.Fatalf("%s: %v %v", e.Name, r.Status, r.Err)
				}
				content := readEntry(t, a, e)
				wantB3, wantSHA := b3[e.Name], sha[e.Name]
				if wantB3 == "" || wantSHA == "" {
					t.Fatalf("%s: not in the sums files", e.Name)
				}
				own := blake3.Sum256(content)
				ownSHA := sha256.Sum256(content)
				if got := hex.EncodeToString(r.BLAKE3); got != wantB3 || hex.EncodeToString(own[:]) != wantB3 {
					t.Errorf("%s: BLAKE3 %s, own hash %x, b3sum %s", e.Name, got, own, wantB3)
				}
				if got := hex.EncodeToString(r.SHA256); got != wantSHA || hex.EncodeToString(ownSHA[:]) != wantSHA {
					t.Errorf("%s: SHA-256 %s, own hash %x, sha256sum %s", e.Name, got, ownSHA, wantSHA)
				}
				if r.Size != int64(len(content)) {
					t.Errorf("%s: Size %d, content %d bytes", e.Name, r.Size, len(content))
				}
				switch {
				case strings.HasSuffix(name, "rar5.rar"):
					want := blake2sp.Sum256(content)
					if r.Entry.HashKind != "BLAKE2sp" || !bytes.Equal(r.Entry.Hash, want[:]) {
						t.Errorf("%s: stored %s %x, want BLAKE2sp %x", e.Name, r.Entry.HashKind, r.Entry.Hash, want)
					}
				default:
					if !r.Entry.HasCRC32 || r.Entry.CRC32 != crc32.ChecksumIEEE(content) {
						t.Errorf("%s: stored CRC32 %v %08x, content %08x", e.Name, r.Entry.HasCRC32, r.Entry.CRC32, crc32.ChecksumIEEE(content))
					}
				}
			}
			if files != 4 {
				t.Errorf("%d files verified, want 4", files)
			}
		})
	}
}

func readEntry(t *testing.T, a *Archive, e *Entry) []byte {
	t.Helper()
	b, err := testutil.ReadClose(a.OpenEntry(e))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyMismatch: a flipped content byte of a stored ZIP entry is a
// checksum mismatch, with no content digest reported; the stream
// Reader's Verify says the same.
func TestVerifyMismatch(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "verify", "verify-store.zip"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("1\n2\n3\n4\n"))
	if i < 0 {
		t.Fatal("stored content not found")
	}
	b[i+2] = '7'
	check := func(res []VerifyResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 {
			t.Fatalf("%d results", len(res))
		}
		r := res[0]
		if r.Status != VerifyMismatch || !errors.Is(r.Err, ErrChecksum) {
			t.Fatalf("status %v, err %v; want mismatch", r.Status, r.Err)
		}
		if r.BLAKE3 != nil || r.SHA256 != nil {
			t.Errorf("digests reported for a mismatching entry")
		}
		if !r.Entry.HasCRC32 {
			t.Errorf("stored CRC32 not reported")
		}
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	check(a.Verify(context.Background(), WithDigests(DigestBLAKE3|DigestSHA256)))
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check(r.Verify(context.Background(), WithDigests(DigestBLAKE3)))
}

// utf16z is a 7z name: UTF-16LE with a terminating zero.
func utf16z(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return append(b, 0, 0)
}

// noCRC7z builds a 7z archive of one Copy-coded file whose header
// stores no CRC (7-Zip always writes one; the format makes it optional).
func noCRC7z(content []byte) []byte {
	n := byte(len(content)) // < 0x80: one-byte 7z numbers
	name := utf16z("plain.txt")
	hdr := []byte{0x01, 0x04, // Header, MainStreamsInfo
		0x06, 0x00, 0x01, 0x09, n, 0x00, // PackInfo: pos 0, 1 stream, sizes, End
		0x07, 0x0B, 0x01, 0x00, 0x01, 0x01, 0x00, 0x0C, n, 0x00, // UnpackInfo: 1 folder, 1 coder (Copy), size, End
		0x00,             // End of streams info
		0x05, 0x01, 0x11, // FilesInfo: 1 file, Name
		byte(len(name) + 1), 0x00}
	hdr = append(hdr, name...)
	hdr = append(hdr, 0x00, 0x00) // End of files info, End of header
	var sh [32]byte
	copy(sh[:], "7z\xBC\xAF\x27\x1C\x00\x04")
	binary.LittleEndian.PutUint64(sh[12:], uint64(len(content)))
	binary.LittleEndian.PutUint64(sh[20:], uint64(len(hdr)))
	binary.LittleEndian.PutUint32(sh[28:], crc32.ChecksumIEEE(hdr))
	binary.LittleEndian.PutUint32(sh[8:], crc32.ChecksumIEEE(sh[12:]))
	out := append(sh[:], content...)
	return append(out, hdr...)
}

// TestVerifyNoChecksum: an entry the archive stores no checksum for
// decodes, is reported as "no stored checksum", and still gets its
// content digest.
func TestVerifyNoChecksum(t *testing.T) {
	content := []byte("no checksum is stored for these bytes\n")
	b := noCRC7z(content)
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Entries()[0].Verifiable() {
		t.Fatal("test archive has a checksum")
	}
	res, err := a.Verify(context.Background(), WithDigests(DigestBLAKE3))
	if err != nil {
		t.Fatal(err)
	}
	want := blake3.Sum256(content)
	if len(res) != 1 || res[0].Status != VerifyNoChecksum || res[0].Err != nil || !bytes.Equal(res[0].BLAKE3, want[:]) {
		t.Fatalf("results %+v; want one no-checksum result with BLAKE3 %x", res, want)
	}
	if res[0].Status.String() != "no-checksum" {
		t.Errorf("status text %q", res[0].Status)
	}
}

// TestVerifyCancel: a cancelled context stops Verify before the next
// entry and returns ctx.Err() with the results so far.
func TestVerifyCancel(t *testing.T) {
	a := openTestdata(t, "verify.zip")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := a.Verify(ctx)
	if !errors.Is(err, context.Canceled) || len(res) != 0 {
		t.Fatalf("cancelled before: %d results, %v", len(res), err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	err = a.VerifyFunc(ctx, func(*VerifyResult) error { calls++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("cancelled after the first entry: %d calls, %v", calls, err)
	}
	// Cancelled inside an entry's decoding: the entry gets no verdict.
	ctx, cancel = context.WithCancel(context.Background())
	w := &digestWriter{ctx: ctx}
	cancel()
	if _, err := w.Write([]byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("write after cancel: %v", err)
	}
	stop := errors.New("stop")
	if err := a.VerifyFunc(context.Background(), func(*VerifyResult) error { return stop }); err != stop {
		t.Fatalf("callback error: %v", err)
	}
}

// TestVerifyFilter: only the selected entries are reported.
func TestVerifyFilter(t *testing.T) {
	a := openTestdata(t, "verify-rar5.rar")
	res, err := a.Verify(context.Background(), VerifyFilter(func(e *Entry) bool { return e.Name == "noise.txt" }))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Entry.Name != "noise.txt" || res[0].Status != VerifyOK || res[0].BLAKE3 != nil {
		t.Fatalf("%+v", res)
	}
}

// TestVerifyStream: entries of a compressed tarball have no checksum of
// their own but are covered by the stream's (gzip CRC32, zstd XXH64 …):
// Verify says so with VerifyStream, through both APIs; a plain tar and a
// stream without a checksum stay VerifyNoChecksum.
func TestVerifyStream(t *testing.T) {
	for _, c := range []struct {
		file string
		want VerifyStatus
	}{
		{"small.tar.gz", VerifyStream},
		{"small.tar.zst", VerifyStream},
		{"small.tar.xz", VerifyStream},
		{"text.txt.bz2", VerifyStream},
		{"gnu.tar", VerifyNoChecksum},
		{"text-nocheck.txt.zst", VerifyNoChecksum},
		{"small.tar.lzma", VerifyNoChecksum},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "tar", c.file))
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		ares, err := a.Verify(context.Background())
		a.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		rres, err := r.Verify(context.Background())
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		for api, res := range map[string][]VerifyResult{"Archive": ares, "Reader": rres} {
			files := 0
			for _, x := range res {
				if x.Status == VerifySkipped {
					continue
				}
				files++
				if x.Status != c.want || x.Err != nil {
					t.Errorf("%s %s %s: %v %v; want %v", c.file, api, x.Entry.Name, x.Status, x.Err, c.want)
				}
			}
			if files == 0 {
				t.Errorf("%s %s: no entry with data verified", c.file, api)
			}
		}
	}
	if VerifyStream.String() != "stream" {
		t.Errorf("status text %q", VerifyStream)
	}
}
