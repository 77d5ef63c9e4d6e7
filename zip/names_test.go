package zip

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// unicodePathExtra builds an Info-ZIP Unicode path field (0x7075) for a
// header name raw, claiming utf8 as the real name.
func unicodePathExtra(raw, utf8 string, crc uint32) []byte {
	b := binary.LittleEndian.AppendUint16(nil, extraUnicodePath)
	b = binary.LittleEndian.AppendUint16(b, uint16(5+len(utf8)))
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, crc)
	return append(b, utf8...)
}

// TestNames covers name decoding: the Unicode path field (used only when
// its CRC matches the raw name), legacy bytes decoded as CP437, DOS
// backslashes, and the DOS directory attribute.
func TestNames(t *testing.T) {
	raw := "caf\x82.txt" // CP437 "café.txt": not UTF-8
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	add := func(fh *zip.FileHeader, data string) {
		fw, err := w.CreateRaw(fh)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(data))
	}
	hdr := func(name string, extra []byte, host uint16, attrs uint32, data string) *zip.FileHeader {
		return &zip.FileHeader{Name: name, Extra: extra, CreatorVersion: host<<8 | 20, ExternalAttrs: attrs,
			CRC32: crc32.ChecksumIEEE([]byte(data)), CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(len(data))}
	}
	add(hdr(raw, unicodePathExtra(raw, "café.txt", crc32.ChecksumIEEE([]byte(raw))), hostDOS, 0, "a"), "a")
	add(hdr("b"+raw, unicodePathExtra("b"+raw, "stale.txt", 1234), hostDOS, 0, "b"), "b")
	add(hdr(`win\path\file.txt`, nil, hostDOS, 0, "c"), "c")
	add(hdr(`unix\name`, nil, hostUnix, 0o100644<<16, "d"), "d")
	add(hdr("dosdir", nil, hostDOS, 0x10, ""), "")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"café.txt", "bcafé.txt", "win/path/file.txt", `unix\name`, "dosdir"}
	for i, e := range a.Entries() {
		if e.Name != want[i] {
			t.Errorf("entry %d: name %q, want %q", i, e.Name, want[i])
		}
	}
	if e := a.Entries()[4]; !e.IsDir() {
		t.Errorf("DOS directory attribute: mode %v", e.Mode)
	}
	// The forward Reader sees the local headers: the same Unicode names.
	z, err := NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		e, err := z.Next()
		if err != nil || e.Name != want[i] {
			t.Errorf("Reader entry %d: %v %v", i, e, err)
		}
	}
}

// TestEncrypted: encrypted entries are listed; opening one needs a
// password, and a wrong one is ErrPassword before anything is decoded.
func TestEncrypted(t *testing.T) {
	dir := testutil.CorpusDir(t)
	for _, name := range []string{"own/zip/zip_zipcrypto.zip", "own/zip/zip_aes256.zip"} {
		data := loadCorpus(t, dir, name)
		a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		withPw, _ := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{
			Password: func(*arc.Entry) (string, error) { return "not the password", nil }}))
		for i, e := range a.Entries() {
			if e.IsDir() {
				continue
			}
			if !e.Encrypted {
				t.Errorf("%s: %s not marked encrypted", name, e.Name)
			}
			if _, err := a.Open(i); !errors.Is(err, errs.ErrPasswordRequired) {
				t.Errorf("%s: %s: %v, want ErrPasswordRequired", name, e.Name, err)
			}
			if _, err := withPw.Open(i); !errors.Is(err, errs.ErrPassword) {
				t.Errorf("%s: %s with a wrong password: %v, want ErrPassword", name, e.Name, err)
			}
		}
		if filepath.Base(name) == "zip_aes256.zip" {
			if m := a.Entries()[0].Method; m[:7] != "AES-256" {
				t.Errorf("AES method name %q", m)
			}
		}
	}
}

// TestClosedReader: a closed entry reader fails instead of reading state
// that went back to the pool.
func TestClosedReader(t *testing.T) {
	data := readTestdata(t, "infozip-deflate.zip")
	a, _ := Open(bytes.NewReader(data), int64(len(data)), nil)
	rc, err := a.Open(2)
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	rc.Close()
	if _, err := rc.Read(make([]byte, 10)); err == nil {
		t.Error("Read after Close succeeded")
	}
	if _, err := io.Copy(io.Discard, rc); err == nil {
		t.Error("WriteTo after Close succeeded")
	}
}

// TestConcurrentOpen reads every entry from several goroutines at once.
func TestConcurrentOpen(t *testing.T) {
	data := readTestdata(t, "bsdtar-deflate.zip")
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for k := 0; k < 20; k++ {
				for i, e := range a.Entries() {
					if e.IsDir() {
						continue
					}
					rc, err := a.Open(i)
					if err != nil {
						done <- err
						return
					}
					n, err := io.Copy(io.Discard, rc)
					rc.Close()
					if err != nil || n != e.Size {
						done <- fmt.Errorf("%s: %d bytes, %v", e.Name, n, err)
						return
					}
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestCP437Table checks the whole upper half of the table against iconv.
func TestCP437Table(t *testing.T) {
	iconv, err := exec.LookPath("iconv")
	if err != nil {
		t.Skip("iconv not installed")
	}
	var all []byte
	for c := 0x80; c <= 0xff; c++ {
		all = append(all, byte(c), '\n')
	}
	cmd := exec.Command(iconv, "-f", "CP437", "-t", "UTF-8")
	cmd.Stdin = bytes.NewReader(all)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("iconv has no CP437: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 128 {
		t.Fatalf("iconv gave %d lines", len(lines))
	}
	for i, want := range lines {
		if got := decodeCP437([]byte{byte(0x80 + i)}); got != want {
			t.Errorf("0x%02x: %q, want %q", 0x80+i, got, want)
		}
	}
	if got := decodeCP437([]byte("a\x82\x9b\xe1\xff")); got != "aé¢ß\u00a0" {
		t.Errorf("mixed: %q", got)
	}
}

// TestLegacyNames: names and comments without the UTF-8 flag are CP437 by
// default, or go through Config.DecodeName; flagged names stay UTF-8; the
// Unicode path field still wins over a decoder.
func TestLegacyNames(t *testing.T) {
	sjis := "\x83e\x83X\x83g.txt" // "テスト.txt" in Shift-JIS
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	add := func(name string, flags uint16, extra []byte, comment string) {
		fh := &zip.FileHeader{Name: name, Extra: extra, Comment: comment, CreatorVersion: hostDOS<<8 | 20, Flags: flags}
		// archive/zip sets the UTF-8 flag itself for valid non-ASCII
		// names; NonUTF8 stops it, so the flag is exactly what we ask.
		fh.NonUTF8 = flags&flagUTF8 == 0
		if _, err := w.CreateRaw(fh); err != nil {
			t.Fatal(err)
		}
	}
	add(sjis, 0, nil, "\x82\xa0") // comment: Shift-JIS "あ"
	add("naïve.txt", flagUTF8, nil, "")
	add("\x80\x81", 0, unicodePathExtra("\x80\x81", "from-extra", crc32.ChecksumIEEE([]byte("\x80\x81"))), "")
	w.SetComment("caf\x82")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	names := func(cfg *arc.Config) ([]string, string, string) {
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range a.Entries() {
			out = append(out, e.Name)
		}
		return out, a.Entries()[0].Comment, a.Comment()
	}
	got, ecmt, acmt := names(nil)
	want := []string{"âeâXâg.txt", "naïve.txt", "from-extra"}
	if !slices.Equal(got, want) || ecmt != "éá" || acmt != "café" {
		t.Errorf("CP437: %q %q %q, want %q %q %q", got, ecmt, acmt, want, "éá", "café")
	}
	calls := 0
	fake := func(b []byte) string { // a stand-in Shift-JIS decoder
		calls++
		switch string(b) {
		case sjis:
			return "テスト.txt"
		case "\x82\xa0":
			return "あ"
		}
		return "?" + string(b)
	}
	got, ecmt, _ = names(&arc.Config{DecodeName: fake})
	want = []string{"テスト.txt", "naïve.txt", "from-extra"}
	if !slices.Equal(got, want) || ecmt != "あ" {
		t.Errorf("DecodeName: %q %q, want %q", got, ecmt, want)
	}
	z, err := NewReader(bytes.NewReader(data), conf.From(&arc.Config{DecodeName: fake}))
	if err != nil {
		t.Fatal(err)
	}
	if e, err := z.Next(); err != nil || e.Name != "テスト.txt" {
		t.Errorf("Reader: %v, %v", e, err)
	}
	if calls == 0 {
		t.Error("decoder never called")
	}
}
