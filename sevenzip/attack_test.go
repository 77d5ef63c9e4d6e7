package sevenzip

import (
	"bytes"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// xzRaw compresses data to a raw LZMA2 stream with an 8 MiB dictionary
// (7z property byte 22) using the xz tool.
func xzRaw(t *testing.T, data []byte) []byte {
	cmd := exec.Command("xz", "--format=raw", "--lzma2=dict=8MiB", "-c")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xz: %v", err)
	}
	return out
}

// TestWriteAttacks writes the attack archives of the 7z hardening work
// to $UNARC_7Z_ATTACKS, for measuring the CLI on them (time, RSS).
func TestWriteAttacks(t *testing.T) {
	dir := os.Getenv("UNARC_7Z_ATTACKS")
	if dir == "" {
		t.Skip("set UNARC_7Z_ATTACKS to a directory")
	}
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz not installed")
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", name, len(b))
	}
	for _, n := range []int{10_000_000, 1_000_000} {
		hdr := emptyFilesHeader(n)
		write(map[int]string{10_000_000: "count-10M.7z", 1_000_000: "count-1M.7z"}[n],
			encodedArchive(nil, hdr, []coderSpec{lzma2Coder(22)}, xzRaw(t, hdr)))
	}
	// A 256 MiB header: one empty file and a 256 MiB padding property.
	pad := make([]byte, 256<<20)
	hdr := cat([]byte{idHeader, idFilesInfo, 1, idDummy}, num(uint64(len(pad))), pad,
		[]byte{idName, 5, 0, 'f', 0, 0, 0, idEmptyStream, 1, 0x80, idEnd, idEnd})
	write("header-256M.7z", encodedArchive(nil, hdr, []coderSpec{lzma2Coder(22)}, xzRaw(t, hdr)))
	pad, hdr = nil, nil

	// Three chained PPMd coders of 1.5 GiB each.
	ppmd := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, 1536<<20)}
	write("ppmd-chain.7z", oneFileArchive(make([]byte, 64), []coderSpec{ppmd, ppmd, ppmd}, []uint64{1 << 30, 1 << 30, 1 << 30}, 0))
	// Four chained LZMA coders of 1 GiB windows each.
	lz := coderSpec{id: []byte{0x03, 0x01, 0x01}, props: []byte{0x5D, 0, 0, 0, 0x40}}
	write("lzma-chain.7z", oneFileArchive(make([]byte, 64), []coderSpec{lz, lz, lz, lz}, []uint64{1 << 30, 1 << 30, 1 << 30, 1 << 30}, 0))
	// A tiny LZMA stream declaring 1.5 GiB with a 1.5 GiB dictionary.
	small := xzRaw(t, []byte("tiny"))
	write("window-lie.7z", oneFileArchive(small, []coderSpec{{id: []byte{0x21}, props: []byte{37}}}, []uint64{1536 << 20}, 0))
	// A 4 GiB dictionary over a 12 KB file (must extract).
	content := bytes.Repeat([]byte("twelve kilobytes "), 720)
	write("dict-4G.7z", oneFileArchive(xzRaw(t, content), []coderSpec{{id: []byte{0x21}, props: []byte{40}}}, []uint64{uint64(len(content))}, crc32.ChecksumIEEE(content)))
	// 300 AES folders, one salt each, 2^19 rounds.
	write("kdf-salts.7z", aesFolders(t, 300, 19, func(i int) []byte { return []byte{byte(i), byte(i >> 8), 7, 7} }, "pw"))
}
