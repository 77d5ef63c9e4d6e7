package sevenzip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// sentinels is every error class an input can cause.
var sentinels = []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
	errs.ErrPasswordRequired, errs.ErrPassword, errs.ErrUnsupported, errs.ErrInsecurePath, errs.ErrLimit}

// checkOneSentinel fails unless err wraps exactly want among the
// sentinels and names no entry and no "unarc:" prefix of its own.
func checkOneSentinel(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", what, err, want)
		return
	}
	for _, s := range sentinels {
		if s != want && errors.Is(err, s) && !(want == errs.ErrTruncated && s == io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v matches %v too", what, err, s)
		}
	}
	if msg := strings.TrimPrefix(err.Error(), want.Error()); strings.Contains(msg, "unarc:") {
		t.Errorf("%s: message repeats a prefix: %q", what, err)
	}
}

// TestTruncationEverywhere cuts real archives at many points: every cut
// is ErrTruncated, whether it falls in the signature header, the pack
// data or the (encoded) header.
func TestTruncationEverywhere(t *testing.T) {
	for _, name := range []string{"lzma2.7z", "copy.7z", "aes_lzma2_he.7z"} {
		data, err := os.ReadFile("../testdata/7z/" + name)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/97)
		for cut := 6; cut < len(data); cut += step {
			_, err := Open(bytes.NewReader(data[:cut]), int64(cut), conf.From(&arc.Config{
				Password: func(*arc.Entry) (string, error) { return testPassword, nil }}))
			checkOneSentinel(t, name+" cut", err, errs.ErrTruncated)
		}
	}
}

// TestHonestSizes: a damaged header CRC is corrupt, an entry whose coder
// ends before its declared size is an error, and a wrong password on an
// AES folder without CRC is ErrPassword.
func TestHonestSizes(t *testing.T) {
	data, err := os.ReadFile("../testdata/7z/copy.7z")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	bad[len(bad)-3] ^= 0x55 // in the header; the start header's CRC no longer matches
	_, err = openBytes(bad)
	checkOneSentinel(t, "header CRC", err, errs.ErrCorrupt)

	// An encoded header whose folder CRC does not match.
	hdr := emptyFilesHeader(8)
	enc := encodedArchive(nil, hdr, []coderSpec{copyCoder}, nil)
	i := bytes.LastIndex(enc, hdr[:6]) // the stored (Copy) header bytes
	enc[i+len(hdr)-3] ^= 1
	fixCRCs(enc)
	_, err = openBytes(enc)
	checkOneSentinel(t, "encoded header CRC", err, errs.ErrCorrupt)

	// A Copy folder declaring more bytes than its (complete) pack stream.
	short := oneFileArchive([]byte("0123456789"), []coderSpec{copyCoder}, []uint64{20}, 0)
	_, err = readEntry0(short, arc.Limits{})
	checkOneSentinel(t, "short coder output", err, errs.ErrCorrupt)

	// LZMA2 data cut inside the stream: the decoder runs out of input.
	content := bytes.Repeat([]byte("honest "), 100)
	packed := lzma2Stored(content)
	cut := oneFileArchive(packed[:len(packed)/2], []coderSpec{lzma2Coder(16)}, []uint64{uint64(len(content))}, 0)
	_, err = readEntry0(cut, arc.Limits{})
	checkOneSentinel(t, "stream cut short", err, errs.ErrTruncated)

	// Wrong password, no CRC: the AES data decrypts to garbage.
	enc = aesFoldersOver(t, 1, 4, func(int) []byte { return []byte{1, 2} }, "right", true)
	a, err := openWithCfg(enc, &arc.Config{Password: func(*arc.Entry) (string, error) { return "wrong", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if a.Entries()[0].HasCRC32 {
		t.Fatal("test entry has a CRC")
	}
	rc, err := a.Open(0)
	if err == nil {
		_, err = io.ReadAll(rc)
	}
	t.Logf("wrong password without CRC: %v", err)
	checkOneSentinel(t, "wrong password", err, errs.ErrPassword)
}
