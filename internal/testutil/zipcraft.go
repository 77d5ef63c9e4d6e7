package testutil

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
)

// This file builds ZIP archives byte by byte, for tests that need what
// no writer makes: sizes that lie, overlapping entries (the bombs of
// https://www.bamsoftware.com/hacks/zipbomb/), huge declared sizes.

// ZipFile is one entry as a crafted archive declares it.
type ZipFile struct {
	Name   string
	Method uint16 // 0 store, 8 deflate, 93 zstd …
	Packed []byte // the entry's data as stored
	CRC    uint32
	Size   uint64 // declared uncompressed size
	Zip64  bool   // sizes in a Zip64 extra field (local and central)
	Flags  uint16 // general-purpose flags (Implode's window and tree bits …)
}

// ZipBuilder lays out local headers, data and raw bytes in order, then
// a central directory naming whatever offsets the test chooses.
type ZipBuilder struct {
	buf     bytes.Buffer
	central bytes.Buffer
	count   int
}

var zle = binary.LittleEndian

func (f *ZipFile) extra() []byte {
	if !f.Zip64 {
		return nil
	}
	e := make([]byte, 20)
	zle.PutUint16(e, 1)
	zle.PutUint16(e[2:], 16)
	zle.PutUint64(e[4:], f.Size)
	zle.PutUint64(e[12:], uint64(len(f.Packed)))
	return e
}

func (f *ZipFile) sizes() (c, u uint32) {
	if f.Zip64 {
		return 0xffffffff, 0xffffffff
	}
	return uint32(len(f.Packed)), uint32(f.Size)
}

// version is the "version needed to extract": 4.5 for Zip64, else 2.0.
func (f ZipFile) version() uint16 {
	if f.Zip64 {
		return 45
	}
	return 20
}

// LocalHeader returns f's local header (30 bytes, name, extra). Its
// fields look like CentralHeader's but stand at other offsets (APPNOTE
// 4.3.7 and 4.3.12), so each header is written out field by field.
func LocalHeader(f ZipFile) []byte {
	ex := f.extra()
	h := make([]byte, 30, 30+len(f.Name)+len(ex))
	zle.PutUint32(h, 0x04034b50)
	zle.PutUint16(h[4:], f.version())
	zle.PutUint16(h[6:], f.Flags)
	zle.PutUint16(h[8:], f.Method)
	zle.PutUint16(h[10:], 0x6000) // 12:00
	zle.PutUint16(h[12:], 0x5821) // 2024-01-01
	zle.PutUint32(h[14:], f.CRC)
	c, u := f.sizes()
	zle.PutUint32(h[18:], c)
	zle.PutUint32(h[22:], u)
	zle.PutUint16(h[26:], uint16(len(f.Name)))
	zle.PutUint16(h[28:], uint16(len(ex)))
	h = append(h, f.Name...)
	return append(h, ex...)
}

// Offset is where the next byte goes.
func (b *ZipBuilder) Offset() int64 { return int64(b.buf.Len()) }

// Raw appends bytes as they are.
func (b *ZipBuilder) Raw(p []byte) { b.buf.Write(p) }

// Add appends f's local header and data and lists it in the central
// directory; it returns the local header's offset.
func (b *ZipBuilder) Add(f ZipFile) int64 {
	off := b.Offset()
	b.buf.Write(LocalHeader(f))
	b.buf.Write(f.Packed)
	b.Central(f, off)
	return off
}

// Central lists f in the central directory with its local header at off.
func (b *ZipBuilder) Central(f ZipFile, off int64) {
	ex := f.extra()
	var h [46]byte
	zle.PutUint32(h[:], 0x02014b50)
	zle.PutUint16(h[4:], 3<<8|45) // Unix, 4.5
	zle.PutUint16(h[6:], f.version())
	zle.PutUint16(h[8:], f.Flags)
	zle.PutUint16(h[10:], f.Method)
	zle.PutUint16(h[12:], 0x6000)
	zle.PutUint16(h[14:], 0x5821)
	zle.PutUint32(h[16:], f.CRC)
	c, u := f.sizes()
	zle.PutUint32(h[20:], c)
	zle.PutUint32(h[24:], u)
	zle.PutUint16(h[28:], uint16(len(f.Name)))
	zle.PutUint16(h[30:], uint16(len(ex)))
	zle.PutUint32(h[38:], 0o100644<<16)
	zle.PutUint32(h[42:], uint32(off))
	b.central.Write(h[:])
	b.central.WriteString(f.Name)
	b.central.Write(ex)
	b.count++
}

// Bytes returns the archive: everything added, the central directory
// and the end record.
func (b *ZipBuilder) Bytes() []byte {
	out := bytes.Clone(b.buf.Bytes())
	cdOff := len(out)
	out = append(out, b.central.Bytes()...)
	var e [22]byte
	zle.PutUint32(e[:], 0x06054b50)
	zle.PutUint16(e[8:], uint16(b.count))
	zle.PutUint16(e[10:], uint16(b.count))
	zle.PutUint32(e[12:], uint32(b.central.Len()))
	zle.PutUint32(e[16:], uint32(cdOff))
	return append(out, e[:]...)
}

// DeflateZeros returns a raw Deflate stream of n zero bytes, about
// n/1000 bytes long, built without compressing n bytes: one 1 MiB run
// compressed against a window of zeros is repeated.
func DeflateZeros(n int64) []byte {
	const run = 1 << 20
	zeros := make([]byte, run)
	var out bytes.Buffer
	first := min(n, run)
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(zeros[:first])
	n -= first
	if n == 0 {
		w.Close()
		return out.Bytes()
	}
	w.Flush() // byte-aligned, not final
	var blk bytes.Buffer
	wd, _ := flate.NewWriterDict(&blk, flate.BestCompression, zeros[:32<<10])
	wd.Write(zeros)
	wd.Flush()
	for ; n > run; n -= run {
		out.Write(blk.Bytes())
	}
	blk.Reset()
	wd, _ = flate.NewWriterDict(&blk, flate.BestCompression, zeros[:32<<10])
	wd.Write(zeros[:n])
	wd.Close()
	out.Write(blk.Bytes())
	return out.Bytes()
}

// ZerosCRC is the CRC-32 of n zero bytes.
func ZerosCRC(n int64) uint32 { return crc32CombineZeros(0, n) }

// ZipBombFull is Fifield's first construction at small scale: one
// local header and kernel (Deflate of kernel zero bytes) that n central
// directory entries all point at.
func ZipBombFull(kernel int64, n int) []byte {
	var b ZipBuilder
	f := ZipFile{Name: "0", Method: 8, Packed: DeflateZeros(kernel), CRC: ZerosCRC(kernel), Size: uint64(kernel)}
	off := b.Add(f)
	for i := 1; i < n; i++ {
		g := f
		g.Name = string(rune('0' + i%10))
		b.Central(g, off)
	}
	return b.Bytes()
}

// ZipBombQuoted is Fifield's overlap with quoting at small scale: n
// local headers in a row, each followed by a stored Deflate block that
// quotes the next header, then one kernel all entries end in. Entry i
// decodes to the local headers of entries i+1… and the kernel's zeros;
// every name, size and CRC is consistent, only the data overlaps.
func ZipBombQuoted(kernel int64, n int) []byte {
	files := make([]ZipFile, n)
	k := DeflateZeros(kernel)
	// From the last entry back: each one's data is a quote of the next
	// header followed by the next entry's data.
	packed := k
	out := make([]byte, 0) // decoded content of the entry being built, minus the kernel
	kcrc := ZerosCRC(kernel)
	for i := n - 1; i >= 0; i-- {
		f := ZipFile{Name: "f" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)), Method: 8}
		if i == n-1 {
			f.Packed, f.CRC, f.Size = k, kcrc, uint64(kernel)
		} else {
			next := LocalHeader(files[i+1])
			q := []byte{0, byte(len(next)), byte(len(next) >> 8), ^byte(len(next)), ^byte(len(next) >> 8)}
			q = append(q, next...)
			packed = append(q, packed...)
			out = append(bytes.Clone(next), out...)
			f.Packed = packed
			f.Size = uint64(len(out)) + uint64(kernel)
			// CRC of out followed by kernel zeros.
			f.CRC = crc32CombineZeros(crc32.ChecksumIEEE(out), kernel)
		}
		files[i] = f
	}
	var b ZipBuilder
	for i := range files {
		off := b.Offset()
		h := LocalHeader(files[i])
		b.Raw(h)
		if i < n-1 {
			// The quote block header; the next header follows as its content.
			b.Raw(files[i].Packed[:5])
		} else {
			b.Raw(k)
		}
		b.Central(files[i], off)
	}
	return b.Bytes()
}

// crc32CombineZeros extends the CRC-32 c by n zero bytes.
func crc32CombineZeros(c uint32, n int64) uint32 {
	zeros := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, int64(len(zeros)))
		c = crc32.Update(c, crc32.IEEETable, zeros[:k])
		n -= k
	}
	return c
}
