package zip

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// manyEntries builds, with archive/zip's writer, an archive of n empty
// stored files; beyond 65,535 entries the writer emits Zip64 end records.
func manyEntries(t testutil.TB, n int) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i < n; i++ {
		if _, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%06d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestManyEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	const n = 70000
	data := manyEntries(t, n)
	// Drop the Zip64 records: what a writer unaware of Zip64 leaves, a
	// 16-bit count that wrapped.
	recOff := bytes.LastIndex(data, []byte("PK\x06\x06"))
	if recOff < 0 {
		t.Fatal("archive/zip wrote no Zip64 record")
	}
	cdSize := binary.LittleEndian.Uint64(data[recOff+40:])
	cdOff := binary.LittleEndian.Uint64(data[recOff+48:])
	wrapped := append([]byte(nil), data[:recOff]...)
	wrapped = binary.LittleEndian.AppendUint32(wrapped, sigEnd)
	wrapped = binary.LittleEndian.AppendUint32(wrapped, 0)
	wrapped = binary.LittleEndian.AppendUint16(wrapped, n&0xffff)
	wrapped = binary.LittleEndian.AppendUint16(wrapped, n&0xffff)
	wrapped = binary.LittleEndian.AppendUint32(wrapped, uint32(cdSize))
	wrapped = binary.LittleEndian.AppendUint32(wrapped, uint32(cdOff))
	wrapped = binary.LittleEndian.AppendUint16(wrapped, 0)
	// An SFX stub in front, offsets (including the Zip64 record's) not adjusted.
	sfx := append(bytes.Repeat([]byte("stub"), 1000), data...)

	for _, tc := range []struct {
		name string
		data []byte
	}{{"zip64", data}, {"wrapped16", wrapped}, {"sfx-zip64", sfx}} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Open(bytes.NewReader(tc.data), int64(len(tc.data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			es := a.Entries()
			if len(es) != n {
				t.Fatalf("%d entries, want %d", len(es), n)
			}
			for _, i := range []int{0, 65535, 65536, n - 1} {
				if want := fmt.Sprintf("f%06d", i); es[i].Name != want {
					t.Errorf("entry %d is %q, want %q", i, es[i].Name, want)
				}
				rc, err := a.Open(i)
				if err != nil {
					t.Fatal(err)
				}
				if b, err := io.ReadAll(rc); err != nil || len(b) != 0 {
					t.Errorf("entry %d: %d bytes, %v", i, len(b), err)
				}
				rc.Close()
			}
		})
	}
	// The forward Reader counts the same entries.
	z, err := NewReader(onlyReader{bytes.NewReader(data)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for {
		_, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count++
	}
	if count != n {
		t.Errorf("Reader saw %d entries, want %d", count, n)
	}
}

// virtual is an io.ReaderAt over byte segments and runs of zeros, to
// test offsets and sizes beyond 4 GiB without storing them.
type virtual struct {
	starts []int64
	segs   [][]byte // nil: zeros
	lens   []int64
	size   int64
}

func (v *virtual) add(b []byte) {
	v.starts, v.segs, v.lens = append(v.starts, v.size), append(v.segs, b), append(v.lens, int64(len(b)))
	v.size += int64(len(b))
}

func (v *virtual) zeros(n int64) {
	v.starts, v.segs, v.lens = append(v.starts, v.size), append(v.segs, nil), append(v.lens, n)
	v.size += n
}

func (v *virtual) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for len(p) > 0 && off < v.size {
		i := sort.Search(len(v.starts), func(i int) bool { return v.starts[i] > off }) - 1
		in := off - v.starts[i]
		m := v.lens[i] - in
		if m > int64(len(p)) {
			m = int64(len(p))
		}
		if v.segs[i] == nil {
			clear(p[:m])
		} else {
			copy(p[:m], v.segs[i][in:])
		}
		p, off, n = p[m:], off+m, n+int(m)
	}
	if len(p) > 0 {
		return n, io.EOF
	}
	return n, nil
}

// zeroCRC is the CRC-32 of n zero bytes.
func zeroCRC(n int64) uint32 {
	buf := make([]byte, 1<<20)
	var c uint32
	for n > 0 {
		m := min(n, int64(len(buf)))
		c = crc32.Update(c, crc32.IEEETable, buf[:m])
		n -= m
	}
	return c
}

// bigArchive lays out a stored entry of big zero bytes (sizes in a Zip64
// extra field) followed by a small entry whose offset is beyond 4 GiB,
// with Zip64 end records (APPNOTE 4.3.14, 4.5.3).
func bigArchive(big int64, bigCRC uint32) *virtual {
	le := binary.LittleEndian
	v := &virtual{}
	local := func(name string, crc uint32, c32, u32 uint32, extra []byte) []byte {
		b := le.AppendUint32(nil, sigLocal)
		b = le.AppendUint16(b, 45)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint16(b, 0) // stored
		b = le.AppendUint32(b, 0x58215800)
		b = le.AppendUint32(b, crc)
		b = le.AppendUint32(b, c32)
		b = le.AppendUint32(b, u32)
		b = le.AppendUint16(b, uint16(len(name)))
		b = le.AppendUint16(b, uint16(len(extra)))
		return append(append(b, name...), extra...)
	}
	central := func(name string, crc uint32, c32, u32, off uint32, extra []byte) []byte {
		b := le.AppendUint32(nil, sigCentral)
		b = le.AppendUint16(b, 3<<8|45)
		b = le.AppendUint16(b, 45)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint32(b, 0x58215800)
		b = le.AppendUint32(b, crc)
		b = le.AppendUint32(b, c32)
		b = le.AppendUint32(b, u32)
		b = le.AppendUint16(b, uint16(len(name)))
		b = le.AppendUint16(b, uint16(len(extra)))
		b = le.AppendUint16(b, 0)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint32(b, 0o100644<<16)
		b = le.AppendUint32(b, off)
		return append(append(b, name...), extra...)
	}
	ext := func(vals ...uint64) []byte {
		b := le.AppendUint16(nil, extraZip64)
		b = le.AppendUint16(b, uint16(8*len(vals)))
		for _, x := range vals {
			b = le.AppendUint64(b, x)
		}
		return b
	}
	hello := []byte(helloData)
	helloCRC := crc32.ChecksumIEEE(hello)
	v.add(local("big.bin", bigCRC, 0xffffffff, 0xffffffff, ext(uint64(big), uint64(big))))
	v.zeros(big)
	offB := v.size
	v.add(local("hello.txt", helloCRC, uint32(len(hello)), uint32(len(hello)), nil))
	v.add(hello)
	cdOff := v.size
	cd := central("big.bin", bigCRC, 0xffffffff, 0xffffffff, 0, ext(uint64(big), uint64(big)))
	cd = append(cd, central("hello.txt", helloCRC, uint32(len(hello)), uint32(len(hello)), 0xffffffff, ext(uint64(offB)))...)
	v.add(cd)
	recOff := v.size
	r := le.AppendUint32(nil, sigEnd64)
	r = le.AppendUint64(r, end64Len-12)
	r = le.AppendUint16(r, 45)
	r = le.AppendUint16(r, 45)
	r = le.AppendUint32(r, 0)
	r = le.AppendUint32(r, 0)
	r = le.AppendUint64(r, 2)
	r = le.AppendUint64(r, 2)
	r = le.AppendUint64(r, uint64(len(cd)))
	r = le.AppendUint64(r, uint64(cdOff))
	r = le.AppendUint32(r, sigEnd64Loc)
	r = le.AppendUint32(r, 0)
	r = le.AppendUint64(r, uint64(recOff))
	r = le.AppendUint32(r, 1)
	r = le.AppendUint32(r, sigEnd)
	r = le.AppendUint32(r, 0)
	r = le.AppendUint16(r, 0xffff)
	r = le.AppendUint16(r, 0xffff)
	r = le.AppendUint32(r, 0xffffffff)
	r = le.AppendUint32(r, 0xffffffff)
	r = le.AppendUint16(r, 0)
	v.add(r)
	return v
}

func TestBeyond4GiB(t *testing.T) {
	const big = 1<<32 + 1000
	var crc uint32
	if !testing.Short() {
		crc = zeroCRC(big)
	}
	v := bigArchive(big, crc)
	a, err := Open(v, v.size, nil)
	if err != nil {
		t.Fatal(err)
	}
	es := a.Entries()
	if len(es) != 2 || es[0].Size != big || es[0].PackedSize != big || es[1].Name != "hello.txt" {
		t.Fatalf("entries %+v", es)
	}
	if off := a.files[1].headerOff; off <= 1<<32 {
		t.Fatalf("second local header at %d, want beyond 4 GiB", off)
	}
	rc, err := a.Open(1)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(rc); err != nil || string(b) != helloData {
		t.Fatalf("hello.txt: %q, %v", b, err)
	}
	rc.Close()
	if testing.Short() {
		t.Skip("reading 4 GiB skipped in -short mode")
	}
	rc, _ = a.Open(0)
	if n, err := io.Copy(io.Discard, rc); n != big || err != nil {
		t.Fatalf("big.bin: %d bytes, %v", n, err)
	}
	rc.Close()
	// Forward: the Reader skips 4 GiB of stored data by its Zip64 size.
	z, err := NewReader(onlyReader{io.NewSectionReader(v, 0, v.size)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if e, err := z.Next(); err != nil || e.Size != big {
		t.Fatalf("Next: %v %v", e, err)
	}
	if e, err := z.Next(); err != nil || e.Name != "hello.txt" {
		t.Fatalf("Next: %v %v", e, err)
	}
	if b, err := io.ReadAll(onlyReader{z}); err != nil || string(b) != helloData {
		t.Fatalf("hello.txt: %q, %v", b, err)
	}
	if _, err := z.Next(); err != io.EOF {
		t.Fatalf("Next at end: %v", err)
	}
}
