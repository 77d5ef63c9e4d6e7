package deflate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestCorpusZip decodes every unencrypted Deflate and Deflate64 entry of
// the ZIP files in the shared corpus (found through the central directory,
// APPNOTE 4.3.12 and 4.3.16) and checks size and CRC-32, and that a
// *bufio.Reader source is left exactly at the end of the compressed data.
// Archives the manifest lists as corrupt may fail; others may not.
func TestCorpusZip(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	dir := testutil.CorpusDir(t)
	bad := map[string]bool{}
	for _, c := range testutil.Manifest(t, dir) {
		if c.Error != "" || c.Warning != "" {
			bad[c.Archive] = true
		}
	}
	var ok, okBad, failBad, entries, d64 int
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(strings.ToLower(path), ".zip") {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range centralEntries(data) {
			if e.method != 8 && e.method != 9 {
				continue
			}
			entries++
			if e.method == 9 {
				d64++
			}
			err := checkEntry(data, e)
			switch {
			case err == nil && bad[rel]:
				okBad++
			case err == nil:
				ok++
			case bad[rel]:
				failBad++
				t.Logf("%s: %s (listed as bad): %v", rel, e.name, err)
			default:
				t.Errorf("%s: %s (method %d): %v", rel, e.name, e.method, err)
			}
		}
		return nil
	})
	t.Logf("%d Deflate/Deflate64 entries (%d Deflate64): %d good ones decoded, %d in archives listed as bad decoded, %d in those failed",
		entries, d64, ok, okBad, failBad)
	if entries == 0 {
		t.Fatal("no Deflate entries found in the corpus")
	}
}

type cdEntry struct {
	name          string
	method, flags uint16
	crc           uint32
	csize, size   uint32
	offset        uint32
}

// centralEntries lists the central directory of a single-volume zip; it
// returns nil for anything it does not understand (Zip64, spanning).
func centralEntries(b []byte) []cdEntry {
	i := bytes.LastIndex(b, []byte("PK\x05\x06"))
	if i < 0 || len(b)-i < 22 {
		return nil
	}
	eocd := b[i:]
	if binary.LittleEndian.Uint16(eocd[4:]) != 0 { // disk number: spanned
		return nil
	}
	n := int(binary.LittleEndian.Uint16(eocd[10:]))
	off := int(binary.LittleEndian.Uint32(eocd[16:]))
	var es []cdEntry
	for range n {
		if off < 0 || off+46 > len(b) || binary.LittleEndian.Uint32(b[off:]) != 0x02014b50 {
			return es
		}
		h := b[off:]
		e := cdEntry{
			flags:  binary.LittleEndian.Uint16(h[8:]),
			method: binary.LittleEndian.Uint16(h[10:]),
			crc:    binary.LittleEndian.Uint32(h[16:]),
			csize:  binary.LittleEndian.Uint32(h[20:]),
			size:   binary.LittleEndian.Uint32(h[24:]),
			offset: binary.LittleEndian.Uint32(h[42:]),
		}
		nl, xl, cl := int(binary.LittleEndian.Uint16(h[28:])), int(binary.LittleEndian.Uint16(h[30:])), int(binary.LittleEndian.Uint16(h[32:]))
		if off+46+nl > len(b) {
			return es
		}
		e.name = string(h[46 : 46+nl])
		off += 46 + nl + xl + cl
		if e.flags&1 != 0 || e.csize == 0xFFFFFFFF || e.size == 0xFFFFFFFF || e.offset == 0xFFFFFFFF {
			continue // encrypted or Zip64
		}
		es = append(es, e)
	}
	return es
}

func checkEntry(b []byte, e cdEntry) error {
	off := int(e.offset)
	if off+30 > len(b) || binary.LittleEndian.Uint32(b[off:]) != 0x04034b50 {
		return errCorpus("bad local header offset")
	}
	start := off + 30 + int(binary.LittleEndian.Uint16(b[off+26:])) + int(binary.LittleEndian.Uint16(b[off+28:]))
	end := start + int(e.csize)
	if end > len(b) {
		return errCorpus("data past the end")
	}
	br := bufio.NewReader(bytes.NewReader(b[start:]))
	z := NewReader(nil)
	z.Reset(br, e.method == 9)
	defer z.Close()
	h := crc32.NewIEEE()
	n, err := io.Copy(h, z)
	if err != nil {
		return err
	}
	if n != int64(e.size) || h.Sum32() != e.crc {
		return errCorpus("size or CRC mismatch")
	}
	rest, _ := io.ReadAll(br)
	if !bytes.Equal(rest, b[end:]) {
		return errCorpus("source not left at the end of the compressed data")
	}
	return nil
}

type errCorpus string

func (e errCorpus) Error() string { return string(e) }
