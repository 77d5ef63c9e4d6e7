// Command attackgen writes the crafted ZIP and RAR5 attack archives of
// the resource-bounds measurements to a directory, for timing the
// command-line tool on them (time, peak RSS, bytes written):
//
//	go run ./testdata/attackgen -o DIR
//
// The 7z attack files come from `UNARC_7Z_ATTACKS=DIR go test -run
// TestWriteAttacks ./sevenzip`; the bombs made by the real tools from
// testdata/bombs/make.sh. Nothing here is committed output: every
// archive is rebuilt in a second or two.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"log"
	"os"
	"path/filepath"

	"github.com/go-unarc/unarc/internal/testutil"
)

func main() {
	dir := flag.String("o", "", "output directory")
	flag.Parse()
	if *dir == "" {
		log.Fatal("usage: attackgen -o DIR")
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(*dir, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\t%d\n", name, len(b))
	}

	// ZIP: a Zstandard frame asking for a 2 GiB window over 64 bytes.
	content := []byte("a zstd frame whose header asks for a two gibibyte window ......\n")
	var z testutil.ZipBuilder
	z.Add(testutil.ZipFile{Name: "z", Method: 93, Packed: zstdFrame(31, content),
		CRC: crc32.ChecksumIEEE(content), Size: uint64(len(content))})
	write("zip-zstd-2G-window.zip", z.Bytes())

	// Fifield's overlapping constructions: 200 entries sharing one
	// kernel of 32 MiB of zeros (6.25 GiB declared in all).
	write("zip-overlap-full.zip", testutil.ZipBombFull(32<<20, 200))
	write("zip-overlap-quoted.zip", testutil.ZipBombQuoted(32<<20, 200))

	// 4 GiB of zeros, one Deflate entry with Zip64 sizes.
	const four = 4 << 30
	var z64 testutil.ZipBuilder
	f := testutil.ZipFile{Name: "zeros", Method: 8, Packed: testutil.DeflateZeros(four),
		CRC: testutil.ZerosCRC(four), Size: four, Zip64: true}
	z64.Add(f)
	write("zip64-4G-zeros.zip", z64.Bytes())

	// An entry declaring 10 bytes whose Deflate data inflates to 1 GiB.
	var lie testutil.ZipBuilder
	g := testutil.ZipFile{Name: "small.txt", Method: 8, Packed: testutil.DeflateZeros(1 << 30),
		CRC: testutil.ZerosCRC(10), Size: 10}
	lie.Add(g)
	write("zip-lie-10B-1G.zip", lie.Bytes())

	// RAR5: one file header carrying ~800 KB of file-version records.
	write("rar5-versions-800K.rar", rar5Versions(1, 135000))
	// RAR5: 100,000 files, each an older version (one record each).
	write("rar5-versions-100k-files.rar", rar5Versions(100000, 1))
	// RAR5: a chain of 40,000 file copies, each naming the one before.
	write("rar5-copy-chain-40000.rar", rar5Chain(40000))
}

// zstdFrame is a Zstandard frame whose header asks for a 2^windowLog
// window and holds content as one raw block.
func zstdFrame(windowLog int, content []byte) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, byte(windowLog-10) << 3}
	h := 1 | len(content)<<3 // last block, raw
	f = append(f, byte(h), byte(h>>8), byte(h>>16))
	return append(f, content...)
}

func vint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

type rar5 struct{ b []byte }

func newRAR5() *rar5 {
	w := &rar5{b: []byte("Rar!\x1a\x07\x01\x00")}
	w.block(1, 0, vint(nil, 0), nil, -1) // main header, no archive flags
	return w
}

// block appends a header (CRC32, size, type, flags, extra and data
// sizes, fields, extra) and no data.
func (w *rar5) block(typ, flags uint64, fields, extra []byte, dataSize int64) {
	if len(extra) > 0 {
		flags |= 0x0001
	}
	if dataSize >= 0 {
		flags |= 0x0002
	}
	h := vint(nil, typ)
	h = vint(h, flags)
	if len(extra) > 0 {
		h = vint(h, uint64(len(extra)))
	}
	if dataSize >= 0 {
		h = vint(h, uint64(dataSize))
	}
	h = append(append(h, fields...), extra...)
	body := append(vint(nil, uint64(len(h))), h...)
	w.b = binary.LittleEndian.AppendUint32(w.b, crc32.ChecksumIEEE(body))
	w.b = append(w.b, body...)
}

// file appends a stored file header and its data; crc < 0: no CRC.
func (w *rar5) file(name string, size int64, crc int64, data, extra []byte) {
	var ff uint64
	if crc >= 0 {
		ff |= 0x0004
	}
	f := vint(nil, ff)
	f = vint(f, uint64(size))
	f = vint(f, 0o100644)
	if crc >= 0 {
		f = binary.LittleEndian.AppendUint32(f, uint32(crc))
	}
	f = vint(f, 0) // stored
	f = vint(f, 1) // Unix
	f = vint(f, uint64(len(name)))
	f = append(f, name...)
	dsz := int64(-1)
	if data != nil {
		dsz = int64(len(data))
	}
	w.block(2, 0, f, extra, dsz)
	w.b = append(w.b, data...)
}

func (w *rar5) bytes() []byte {
	w.block(5, 0, vint(nil, 0), nil, -1)
	return w.b
}

// rar5Versions: n empty files "d/f<i>", each header carrying versions
// file-version records (type 4), the last one numbered versions.
func rar5Versions(n, versions int) []byte {
	w := newRAR5()
	var extra []byte
	for i := 0; i < n; i++ {
		extra = extra[:0]
		for v := 1; v <= versions; v++ {
			rec := vint([]byte{4, 0}, uint64(v))
			extra = vint(extra, uint64(len(rec)))
			extra = append(extra, rec...)
		}
		w.file(fmt.Sprintf("d/f%d", i), 0, 0, nil, extra)
	}
	return w.bytes()
}

// rar5Chain: a 1 KB stored source and n copies (redirection type 5),
// copy k naming copy k-1.
func rar5Chain(n int) []byte {
	src := make([]byte, 0, 1040)
	for len(src) < 1040 {
		src = append(src, "chain source\n"...)
	}
	w := newRAR5()
	w.file("s0", int64(len(src)), int64(crc32.ChecksumIEEE(src)), src, nil)
	prev := "s0"
	for k := 1; k <= n; k++ {
		rec := vint(nil, 5) // file system redirection
		rec = vint(rec, 5)  // file copy
		rec = vint(rec, 0)
		rec = vint(rec, uint64(len(prev)))
		rec = append(rec, prev...)
		name := fmt.Sprintf("c%d", k)
		w.file(name, int64(len(src)), -1, nil, append(vint(nil, uint64(len(rec))), rec...))
		prev = name
	}
	return w.bytes()
}
