package zip

import (
	"io/fs"
	"time"
	"unicode/utf8"

	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/meta"
)

// Compression methods a Writer writes (APPNOTE 4.4.5), the values of
// FileHeader.Method. Store and Deflate have archive/zip's values.
const (
	Store   uint16 = 0  // no compression
	Deflate uint16 = 8  // klauspost/compress/flate
	LZMA    uint16 = 14 // LZMA with the 4-byte ZIP properties header and an end marker
	Zstd    uint16 = 93 // Zstandard (klauspost/compress/zstd)
)

// FileHeader describes an entry for Writer.CreateHeader and CreateRaw.
// Its fields are those of archive/zip.FileHeader that a writer reads,
// so code written for archive/zip ports by changing the import.
type FileHeader struct {
	// Name is the slash-separated path inside the archive; a trailing
	// slash makes a directory. A leading "./" is dropped. A name that is
	// absolute, has a drive letter ("C:"), an empty, "." or ".." element
	// or a NUL, or that an earlier entry has, is refused with an error
	// matching ErrInvalidName (WithCleanNames cleans it). A name that is
	// UTF-8 with bytes beyond ASCII gets the UTF-8 flag; other bytes are
	// stored as they are (Info-ZIP on Unix does the same).
	Name string

	// Comment is the entry's comment (at most 65535 bytes).
	Comment string

	// Method is the compression method (Store, Deflate, LZMA, Zstd). A
	// compressed entry is stored instead when compressing does not make
	// it smaller (see Writer). Create and AddFS use the Writer's method
	// (WithMethod).
	Method uint16

	// Modified is the modification time: stored as an MS-DOS time (UTC,
	// clamped to 1980..2107), in the extended timestamp field 0x5455
	// (seconds, 1970..2038, the range its readers agree on) and, for a
	// time outside that range or with a fraction of a second, in the
	// NTFS field 0x000a (100 ns, from 1601; 7-Zip and unarc read it,
	// Info-ZIP unzip and bsdtar take the other two). A zero time stores
	// 1980-01-01 and no field.
	Modified time.Time

	// CRC32, CompressedSize64 and UncompressedSize64 are used by
	// CreateRaw only (CreateHeader computes them); an
	// UncompressedSize64 of 4 GiB or more given to CreateHeader makes
	// the local header Zip64 from the start.
	CRC32              uint32
	CompressedSize64   uint64
	UncompressedSize64 uint64

	// ExternalAttrs are the external file attributes: the Unix mode in
	// the high 16 bits (SetMode sets it), MS-DOS attributes in the low
	// byte. A Unix mode makes the entry "made by" Unix.
	ExternalAttrs uint32
}

// FileInfoHeader returns a FileHeader for fi, as archive/zip's does: the
// base name, the modification time, the mode, and Deflate; a directory's
// name gets its trailing slash.
func FileInfoHeader(fi fs.FileInfo) (*FileHeader, error) {
	h := &FileHeader{Name: fi.Name(), Modified: fi.ModTime(), Method: Deflate,
		UncompressedSize64: uint64(max(fi.Size(), 0))}
	h.SetMode(fi.Mode())
	if fi.IsDir() {
		h.Name += "/"
		h.UncompressedSize64 = 0
	}
	return h, nil
}

// Mode returns the permission and type bits ExternalAttrs hold.
func (h *FileHeader) Mode() fs.FileMode {
	if st := h.ExternalAttrs >> 16; st != 0 {
		return meta.UnixMode(st)
	}
	return meta.WinMode(h.ExternalAttrs)
}

// SetMode sets ExternalAttrs from mode, as Info-ZIP on Unix stores it:
// st_mode in the high 16 bits, the MS-DOS directory and read-only bits
// in the low byte.
func (h *FileHeader) SetMode(mode fs.FileMode) {
	h.ExternalAttrs = archwrite.UnixMode(mode) << 16
	if mode.IsDir() {
		h.ExternalAttrs |= dosDir
	}
	if mode&0o200 == 0 {
		h.ExternalAttrs |= dosReadOnly
	}
}

// MS-DOS attribute bits of the external attributes (APPNOTE 4.4.15).
const (
	dosReadOnly = 0x01
	dosDir      = 0x10
)

// Versions (APPNOTE 4.4.3) the writer puts in "version needed".
const (
	verDefault = 20 // Deflate, directories
	verZip64   = 45
	verAES     = 51 // WinZip AES, as WinZip and 7-Zip write it
	verLZMA    = 63
	verMadeBy  = 63 // APPNOTE 6.3
)

// rec is what the central directory says of one written entry.
type rec struct {
	name     string
	comment  string
	flags    uint16
	method   uint16 // the header's (99 for AES)
	real     uint16 // the compression method (inside AES)
	version  uint16 // needed to extract
	madeBy   uint16
	dosTime  uint16
	dosDate  uint16
	crc      uint32
	csize    uint64
	usize    uint64
	offset   uint64 // of the local header, from the archive's start
	extAttr  uint32
	mtime    time.Time
	aes      bool
	localZ64 bool // the local header has a Zip64 field
}

// dosDateTime is t (UTC) as an MS-DOS date and time, clamped to the
// years the format holds.
func dosDateTime(t time.Time) (date, tm uint16) {
	if t.IsZero() {
		return 1<<5 | 1, 0 // 1980-01-01
	}
	t = t.UTC()
	switch {
	case t.Year() < 1980:
		return 1<<5 | 1, 0
	case t.Year() > 2107:
		return 127<<9 | 12<<5 | 31, 23<<11 | 59<<5 | 29
	}
	date = uint16(t.Year()-1980)<<9 | uint16(t.Month())<<5 | uint16(t.Day())
	tm = uint16(t.Hour())<<11 | uint16(t.Minute())<<5 | uint16(t.Second()/2)
	return date, tm
}

// unixTimeFits reports whether t fits the extended timestamp: Info-ZIP
// reads its 32 bits as signed, 7-Zip and libarchive as unsigned, so only
// 1970..2038 means the same to all.
func unixTimeFits(t time.Time) bool {
	s := t.Unix()
	return s >= 0 && s < 1<<31
}

// needsUTF8 reports whether name gets the UTF-8 flag: valid UTF-8 with
// a byte beyond ASCII.
func needsUTF8(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return utf8.ValidString(s)
		}
	}
	return false
}

// appendTimeExtra appends the time fields of t: NTFS (0x000a) when t
// has a fraction of a second or lies outside 1970..2038, then 0x5455
// when it lies inside (Info-ZIP and libarchive read only that one).
func appendTimeExtra(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	fits := unixTimeFits(t)
	if !fits || t.Nanosecond() != 0 {
		if t.Year() < 1601 {
			t = time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		ft := archwrite.Filetime(t)
		b = le.AppendUint16(b, extraNTFS)
		b = le.AppendUint16(b, 32)
		b = le.AppendUint32(b, 0)  // reserved
		b = le.AppendUint16(b, 1)  // tag 1: times
		b = le.AppendUint16(b, 24) // its size
		b = le.AppendUint64(b, ft) // mtime
		b = le.AppendUint64(b, ft) // atime
		b = le.AppendUint64(b, ft) // ctime
	}
	if fits {
		b = le.AppendUint16(b, extraExtTime)
		b = le.AppendUint16(b, 5)
		b = append(b, 1)
		b = le.AppendUint32(b, uint32(t.Unix()))
	}
	return b
}

// appendAESExtra appends the WinZip AES field: vendor version 2 (AE-2),
// "AE", strength 3 (AES-256), the compression method.
func appendAESExtra(b []byte, method uint16) []byte {
	b = le.AppendUint16(b, extraAES)
	b = le.AppendUint16(b, 7)
	b = le.AppendUint16(b, 2)
	b = append(b, 'A', 'E', 3)
	return le.AppendUint16(b, method)
}

// appendLocal appends r's local header (APPNOTE 4.3.7). Sizes and CRC
// are those known now (zero with a data descriptor); with localZ64 the
// sizes go to a Zip64 field.
func appendLocal(b []byte, r *rec) []byte {
	b = le.AppendUint32(b, sigLocal)
	b = le.AppendUint16(b, r.version)
	b = le.AppendUint16(b, r.flags)
	b = le.AppendUint16(b, r.method)
	b = le.AppendUint16(b, r.dosTime)
	b = le.AppendUint16(b, r.dosDate)
	b = le.AppendUint32(b, r.crc)
	if r.localZ64 {
		b = le.AppendUint32(b, 0xffffffff)
		b = le.AppendUint32(b, 0xffffffff)
	} else {
		b = le.AppendUint32(b, uint32(r.csize))
		b = le.AppendUint32(b, uint32(r.usize))
	}
	b = le.AppendUint16(b, uint16(len(r.name)))
	n := len(b)
	b = le.AppendUint16(b, 0) // extra length, set below
	b = append(b, r.name...)
	e := len(b)
	if r.localZ64 {
		b = le.AppendUint16(b, extraZip64)
		b = le.AppendUint16(b, 16)
		b = le.AppendUint64(b, r.usize)
		b = le.AppendUint64(b, r.csize)
	}
	b = appendTimeExtra(b, r.mtime)
	if r.aes {
		b = appendAESExtra(b, r.real)
	}
	le.PutUint16(b[n:], uint16(len(b)-e))
	return b
}

// zip64Max is the largest size, offset or count kept in a 32-bit field:
// from it on, the Zip64 field holds the value (a variable, so tests
// reach Zip64 with small archives).
var zip64Max uint64 = 0xfffffffe

// countMax is the same for the 16-bit entry counts.
var countMax uint64 = 0xfffe

// appendCentral appends r's central directory header (APPNOTE 4.3.12),
// with a Zip64 field holding what does not fit.
func appendCentral(b []byte, r *rec) []byte {
	z64u, z64c, z64o := r.usize > zip64Max, r.csize > zip64Max, r.offset > zip64Max
	ver := r.version
	if z64u || z64c || z64o {
		ver = max(ver, verZip64)
	}
	b = le.AppendUint32(b, sigCentral)
	b = le.AppendUint16(b, r.madeBy)
	b = le.AppendUint16(b, ver)
	b = le.AppendUint16(b, r.flags)
	b = le.AppendUint16(b, r.method)
	b = le.AppendUint16(b, r.dosTime)
	b = le.AppendUint16(b, r.dosDate)
	b = le.AppendUint32(b, r.crc)
	b = le.AppendUint32(b, sat32(r.csize, z64c))
	b = le.AppendUint32(b, sat32(r.usize, z64u))
	b = le.AppendUint16(b, uint16(len(r.name)))
	n := len(b)
	b = le.AppendUint16(b, 0) // extra length, set below
	b = le.AppendUint16(b, uint16(len(r.comment)))
	b = le.AppendUint16(b, 0) // disk
	b = le.AppendUint16(b, 0) // internal attributes
	b = le.AppendUint32(b, r.extAttr)
	b = le.AppendUint32(b, sat32(r.offset, z64o))
	b = append(b, r.name...)
	e := len(b)
	if z64u || z64c || z64o {
		b = le.AppendUint16(b, extraZip64)
		sz := len(b)
		b = le.AppendUint16(b, 0)
		if z64u {
			b = le.AppendUint64(b, r.usize)
		}
		if z64c {
			b = le.AppendUint64(b, r.csize)
		}
		if z64o {
			b = le.AppendUint64(b, r.offset)
		}
		le.PutUint16(b[sz:], uint16(len(b)-sz-2))
	}
	b = appendTimeExtra(b, r.mtime)
	if r.aes {
		b = appendAESExtra(b, r.real)
	}
	le.PutUint16(b[n:], uint16(len(b)-e))
	return append(b, r.comment...)
}

func sat32(v uint64, z64 bool) uint32 {
	if z64 {
		return 0xffffffff
	}
	return uint32(v)
}

// appendEnd appends the end records (APPNOTE 4.3.14 to 4.3.16) of a
// directory of count entries, size bytes at offset off: the Zip64
// record and its locator only when a value does not fit.
func appendEnd(b []byte, count, size, off uint64, comment string) []byte {
	z64 := count > countMax || size > zip64Max || off > zip64Max
	if z64 {
		at := off + size
		b = le.AppendUint32(b, sigEnd64)
		b = le.AppendUint64(b, end64Len-12)
		b = le.AppendUint16(b, verMadeBy|hostUnix<<8)
		b = le.AppendUint16(b, verZip64)
		b = le.AppendUint32(b, 0) // this disk
		b = le.AppendUint32(b, 0) // the directory's disk
		b = le.AppendUint64(b, count)
		b = le.AppendUint64(b, count)
		b = le.AppendUint64(b, size)
		b = le.AppendUint64(b, off)
		b = le.AppendUint32(b, sigEnd64Loc)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint64(b, at)
		b = le.AppendUint32(b, 1) // disks
	}
	c16 := uint16(count)
	if count > countMax {
		c16 = 0xffff
	}
	b = le.AppendUint32(b, sigEnd)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, c16)
	b = le.AppendUint16(b, c16)
	b = le.AppendUint32(b, sat32(size, size > zip64Max))
	b = le.AppendUint32(b, sat32(off, off > zip64Max))
	b = le.AppendUint16(b, uint16(len(comment)))
	return append(b, comment...)
}
