package zip

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/arc"
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
// its CRC matches the raw name), raw legacy bytes kept as they are, DOS
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
	a, err := NewArchive(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"café.txt", "b" + raw, "win/path/file.txt", `unix\name`, "dosdir"}
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
// password, and with one says the cipher is not implemented yet.
func TestEncrypted(t *testing.T) {
	dir := testutil.CorpusDir(t)
	for _, name := range []string{"own/zip/zip_zipcrypto.zip", "own/zip/zip_aes256.zip"} {
		data := loadCorpus(t, dir, name)
		a, err := NewArchive(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		withPw, _ := NewArchive(bytes.NewReader(data), int64(len(data)), &arc.Config{
			Password: func(*arc.Entry) (string, error) { return "password", nil }})
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
			if _, err := withPw.Open(i); !errors.Is(err, errs.ErrUnsupported) {
				t.Errorf("%s: %s with password: %v, want ErrUnsupported", name, e.Name, err)
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
	a, _ := NewArchive(bytes.NewReader(data), int64(len(data)), nil)
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
	a, err := NewArchive(bytes.NewReader(data), int64(len(data)), nil)
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
