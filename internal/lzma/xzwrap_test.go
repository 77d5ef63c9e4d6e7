package lzma

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/go-unarc/unarc/internal/testutil"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The xz package of this module only reads, so the tests that want an
// outside tool to check our LZMA2 output wrap it here in the smallest
// valid .xz file (xz file format 1.2.1): a stream header, one block with
// the LZMA2 filter and a CRC32 check, the index and the stream footer.
// 7zz and xz both read it, and both verify the CRC32 of the data.

// putVarint appends the xz multibyte integer form of v.
func putVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func putCRC(b []byte, over []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(over))
}

func pad4(b []byte, from int) []byte {
	for (len(b)-from)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// lzma2DictByte is the LZMA2 property byte of the smallest dictionary
// size byte that holds dict (xz and 7z store dictionary sizes that way).
func lzma2DictByte(dict int64) byte {
	for b := byte(0); b < 40; b++ {
		if n, _ := DictSizeLZMA2(b); n >= dict {
			return b
		}
	}
	return 40
}

// xzWrap wraps a raw LZMA2 stream (ending with its end byte) whose
// decoded content is plain and whose dictionary is dict.
func xzWrap(lzma2 []byte, dict int64, plain []byte) []byte {
	const checkCRC32 = 0x01
	flags := []byte{0, checkCRC32}
	out := []byte{0xFD, '7', 'z', 'X', 'Z', 0}
	out = append(out, flags...)
	out = putCRC(out, flags)

	// Block header: size byte, flags (one filter, both sizes present),
	// the sizes, the LZMA2 filter (id 0x21, one property byte), padding
	// and a CRC32 over all of it.
	h := []byte{0, 0x00 | 0x40 | 0x80}
	h = putVarint(h, uint64(len(lzma2)))
	h = putVarint(h, uint64(len(plain)))
	h = append(h, 0x21, 1, lzma2DictByte(dict))
	h = pad4(h, -4) // room for the CRC32 makes the whole a multiple of 4
	h[0] = byte((len(h)+4)/4 - 1)
	h = putCRC(h, h)
	out = append(out, h...)
	blockStart := len(out)
	out = append(out, lzma2...)
	out = pad4(out, blockStart)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(plain))
	unpadded := len(h) + len(lzma2) + 4

	// Index: indicator, one record, padding, CRC32.
	idx := []byte{0}
	idx = putVarint(idx, 1)
	idx = putVarint(idx, uint64(unpadded))
	idx = putVarint(idx, uint64(len(plain)))
	idx = pad4(idx, 0)
	idx = putCRC(idx, idx)
	out = append(out, idx...)

	// Footer: CRC32 of backward size and flags, backward size, flags, magic.
	var f []byte
	f = binary.LittleEndian.AppendUint32(f, uint32(len(idx)/4-1))
	f = append(f, flags...)
	out = putCRC(out, f)
	out = append(out, f...)
	return append(out, 'Y', 'Z')
}

// sevenZipTest runs `7zz t` on the file contents data named name (its
// extension tells 7zz the format) and fails the test when 7zz reports
// an error. It skips when 7zz is missing.
func sevenZipTest(t testutil.TB, name string, data []byte) {
	t.Helper()
	if out, err := sevenZipCheck(t, name, data); err != nil {
		t.Fatalf("7zz t %s: %v\n%s", name, err, out)
	}
}

// sevenZipCheck runs `7zz t` and returns its output and an error unless
// 7zz says everything is ok.
func sevenZipCheck(t testutil.TB, name string, data []byte) ([]byte, error) {
	t.Helper()
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("7zz", "t", "-bd", p).CombinedOutput()
	if err == nil && !bytes.Contains(out, []byte("Everything is Ok")) {
		err = errors.New("no \"Everything is Ok\"")
	}
	return out, err
}

// TestXZWrap checks the wrapper itself on a stream xz made, so a failure
// of `7zz t` on our output blames the encoder, not the container; and
// that 7zz really checks the data's CRC32 in it.
func TestXZWrap(t *testing.T) {
	data := genMixed(7, 200<<10)
	raw := toolRun(t, data, "xz", "--format=raw", "--lzma2=preset=1,dict=64KiB", "-c", "{in}")
	sevenZipTest(t, "wrap.xz", xzWrap(raw, 64<<10, data))
	cmd := exec.Command("xz", "-t")
	cmd.Stdin = bytes.NewReader(xzWrap(raw, 64<<10, data))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xz -t on the wrapper: %v\n%s", err, out)
	}
	// The CRC32 of other data: 7zz must refuse it.
	wrong := bytes.Clone(data)
	wrong[len(wrong)/2] ^= 1
	if out, err := sevenZipCheck(t, "bad.xz", xzWrap(raw, 64<<10, wrong)); err == nil {
		t.Fatalf("7zz t accepted a wrong CRC32:\n%s", out)
	}
}
