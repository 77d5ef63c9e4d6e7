package unarc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"hash/crc64"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// holdTar is a tar of n files of 5000 bytes each (f0.txt: '0' bytes, f1:
// '1', …), then a hard link to f1 and f0 again with other content.
func holdTar(t *testing.T, n int) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, body []byte) {
		h.Size = int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	for i := range n {
		add(&tar.Header{Name: "d/f" + string(rune('0'+i)) + ".txt", Mode: 0o644, Typeflag: tar.TypeReg},
			bytes.Repeat([]byte{byte('0' + i)}, 5000))
	}
	add(&tar.Header{Name: "hard.txt", Typeflag: tar.TypeLink, Linkname: "d/f1.txt"}, nil)
	add(&tar.Header{Name: "d/f0.txt", Mode: 0o644, Typeflag: tar.TypeReg}, []byte("later f0"))
	tw.Close()
	return buf.Bytes()
}

// storedGzip compresses b with stored deflate blocks: a flipped byte of
// the data is caught by nothing but the member's CRC-32.
func storedGzip(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.NoCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// storedXZ wraps b in an xz stream of one block of uncompressed LZMA2
// chunks with a CRC64 check (xz itself would compress the zeros of a
// tar): a flipped data byte is caught only by the block's check.
func storedXZ(b []byte) []byte {
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	flags := []byte{0, 0x04} // CRC64
	var x bytes.Buffer
	x.Write([]byte{0xfd, '7', 'z', 'X', 'Z', 0})
	x.Write(flags)
	x.Write(le32(crc32.ChecksumIEEE(flags)))
	// Block header: size (12/4-1), flags (one filter), LZMA2 (0x21) with
	// one property byte (a 4 KiB dictionary), padding, CRC32.
	bh := []byte{2, 0, 0x21, 1, 0, 0, 0, 0}
	x.Write(bh)
	x.Write(le32(crc32.ChecksumIEEE(bh)))
	var data bytes.Buffer
	for i, rest := 0, b; len(rest) > 0; i++ {
		n := min(len(rest), 1<<16)
		ctl := byte(2)
		if i == 0 {
			ctl = 1 // uncompressed, dictionary reset
		}
		data.Write([]byte{ctl, byte((n - 1) >> 8), byte(n - 1)})
		data.Write(rest[:n])
		rest = rest[n:]
	}
	data.WriteByte(0)
	x.Write(data.Bytes())
	for pad := data.Len(); pad%4 != 0; pad++ {
		x.WriteByte(0)
	}
	x.Write(binary.LittleEndian.AppendUint64(nil, crc64.Checksum(b, crc64.MakeTable(crc64.ECMA))))
	uvar := func(v uint64) []byte { return binary.AppendUvarint(nil, v) }
	idx := append([]byte{0, 1}, uvar(uint64(12+data.Len()+8))...)
	idx = append(idx, uvar(uint64(len(b)))...)
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = append(idx, le32(crc32.ChecksumIEEE(idx))...)
	x.Write(idx)
	foot := append(le32(uint32(len(idx)/4-1)), flags...)
	x.Write(le32(crc32.ChecksumIEEE(foot)))
	x.Write(foot)
	x.Write([]byte{'Y', 'Z'})
	return x.Bytes()
}

// flip returns a copy of b with the middle byte of the first run of 100
// bytes c changed.
func flip(t *testing.T, b []byte, c byte) []byte {
	b = bytes.Clone(b)
	i := bytes.Index(b, bytes.Repeat([]byte{c}, 100))
	if i < 0 {
		t.Fatal("run not found: not stored")
	}
	b[i+50] ^= 1
	return b
}

func readerExtract(t *testing.T, data []byte, dest string, opts ...ExtractOption) error {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Extract(context.Background(), dest, opts...)
}

// TestExtractHoldsUntilStreamCheck: a Reader extracting a compressed
// tarball whose stored data has a flipped byte (caught only by the
// gzip CRC-32 or the xz block's CRC64, after the last entry) leaves no
// entry of that stream under its final name, and names every one of them
// with ErrChecksum, the damaged f1.txt included; an intact one gives
// every file, its hard link and the later f0.txt; a truncated one keeps
// the files decoded whole before the cut.
func TestExtractHoldsUntilStreamCheck(t *testing.T) {
	tb := holdTar(t, 3)
	orig := maxHeld
	defer func() { maxHeld = orig }()
	for _, c := range []struct {
		name string
		pack func([]byte) []byte
	}{{"gz", storedGzip}, {"xz", storedXZ}} {
		good := c.pack(tb)
		for _, held := range []int{orig, 2} {
			maxHeld = held

			dest := t.TempDir()
			if err := readerExtract(t, good, dest); err != nil {
				t.Fatalf("%s intact: %v", c.name, err)
			}
			if s := readFile(t, filepath.Join(dest, "d/f0.txt")); s != "later f0" {
				t.Errorf("%s: d/f0.txt = %q, want the later entry's", c.name, s)
			}
			s1, _ := os.Stat(filepath.Join(dest, "d/f1.txt"))
			s2, err := os.Stat(filepath.Join(dest, "hard.txt"))
			if err != nil || !os.SameFile(s1, s2) {
				t.Errorf("%s: hard.txt is not a link to d/f1.txt (%v)", c.name, err)
			}
			noTemps(t, dest)

			dest = t.TempDir()
			err = readerExtract(t, flip(t, good, '1'), dest, WithOverwrite(OverwriteAlways))
			if !errors.Is(err, ErrChecksum) {
				t.Fatalf("%s damaged: %v, want ErrChecksum", c.name, err)
			}
			got := entryErrs(t, err)
			for _, name := range []string{"d/f0.txt", "d/f1.txt", "d/f2.txt", "hard.txt"} {
				if !errors.Is(got[name], ErrChecksum) {
					t.Errorf("%s maxHeld %d: %s: %v, want ErrChecksum", c.name, held, name, got[name])
				}
			}
			filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					t.Errorf("%s maxHeld %d: %s left in place", c.name, held, p)
				}
				return nil
			})
		}

		maxHeld = orig

		// Cut inside f2's data: f0 and f1 were whole; kept, as GNU tar
		// keeps them, with the truncation reported.
		cut := good[:bytes.Index(good, bytes.Repeat([]byte{'2'}, 100))+200]
		dest := t.TempDir()
		err := readerExtract(t, cut, dest)
		if !errors.Is(err, ErrTruncated) {
			t.Errorf("%s cut: %v, want ErrTruncated", c.name, err)
		}
		for _, name := range []string{"d/f0.txt", "d/f1.txt"} {
			if b, err := os.ReadFile(filepath.Join(dest, name)); err != nil || len(b) != 5000 {
				t.Errorf("%s cut: %s: %d bytes, %v", c.name, name, len(b), err)
			}
		}
		if _, err := os.Lstat(filepath.Join(dest, "d/f2.txt")); err == nil {
			t.Errorf("%s cut: the cut d/f2.txt is in place", c.name)
		}
		noTemps(t, dest)
	}
}
