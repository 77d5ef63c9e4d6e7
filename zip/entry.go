package zip

import (
	"encoding/binary"
	"hash/crc32"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/internal/volume"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

var le = binary.LittleEndian

// file is one entry as the central directory (or a local header, for the
// forward Reader) describes it: the public Entry plus what reading needs.
type file struct {
	arc.Entry
	flags       uint16
	method      uint16 // real compression method (the one inside AES)
	aes         bool   // WinZip AES (method 99 + extra 0x9901)
	aesVer      uint16 // AE-1 or AE-2 (AE-2 stores no CRC: the MAC is the check)
	aesStrength byte   // 1, 2, 3: AES-128, -192, -256
	strongAlg   uint16 // PKWARE strong encryption algorithm (extra 0x0017; 0 if absent)
	strongFlags uint16
	dosTime     uint16 // the ZipCrypto check byte of entries with a data descriptor
	zip64       bool   // a Zip64 extra field was present (descriptor sizes are 8 bytes)
	crc         uint32
	csize       uint64
	usize       uint64
	headerOff   int64 // absolute offset of the local header (base delta applied)
	disk        uint32
	dirAttr     bool   // MS-DOS directory attribute
	badZip64    bool   // a Zip64 extra field repeats the sizes with other values (zip64Disagrees)
	rawName     string // the name as stored, when Name differs from it (decoded, converted)
	unnamed     bool   // the name is stored empty (rawName ""): Name is the archive's
}

// header holds the fixed fields shared by local and central headers,
// before extra fields are applied.
type header struct {
	madeBy  uint16
	flags   uint16
	method  uint16
	dosTime uint16
	dosDate uint16
	crc     uint32
	csize   uint32
	usize   uint32
	offset  uint32 // central only
	disk    uint16 // central only
	extAttr uint32 // central only
	central bool
}

// fill sets f from h and the variable parts; name, extra and comment are
// the raw bytes (they are copied). decode is Config.DecodeName.
func (f *file) fill(h *header, name, extra, comment []byte, decode func([]byte) string, archive string) {
	f.flags = h.flags
	f.method = h.method
	f.dosTime = h.dosTime
	f.aes, f.aesVer, f.aesStrength, f.strongAlg, f.strongFlags = false, 0, 0, 0, 0
	f.crc = h.crc
	f.csize = uint64(h.csize)
	f.usize = uint64(h.usize)
	f.headerOff = int64(h.offset)
	f.disk = uint32(h.disk)
	f.Encrypted = h.flags&flagEncrypted != 0
	f.HasCRC32 = true
	f.CRC32 = h.crc
	if t := meta.DOSTime(h.dosDate, h.dosTime); !t.IsZero() {
		f.Modified = t
	}
	f.Name = ""
	f.parseExtra(h, name, extra)
	f.HashKind = ""
	if noCRC(f) {
		// AE-2: no CRC; the MAC after the data authenticates it (its value
		// is known only once the data is read, so Hash stays empty).
		f.HasCRC32, f.CRC32 = false, 0
		f.HashKind = "HMAC-SHA1-80"
	}
	if f.Name == "" {
		f.Name = entryText(cutNUL(name), h.flags, decode)
		if strings.IndexByte(f.Name, '\\') >= 0 && backslashSeparates(h, f.Name, extra) {
			f.Name = strings.ReplaceAll(f.Name, "\\", "/")
		}
	}
	f.unnamed = false
	if f.Name == "" {
		// Stored empty, or a C string that ends at once ("\x00abc"):
		// named after the archive, as 7-Zip names it (and an unnamed
		// 7z entry): "data.zip" gives "data". Extract judges it as any
		// name.
		f.Name = volume.UnnamedEntry(archive, ".zip")
		f.unnamed = len(name) == 0
	}
	if len(comment) > 0 {
		f.Comment = entryText(comment, h.flags, decode)
	}
	f.rawName = ""
	if string(name) != f.Name {
		f.rawName = string(name)
	}
	f.setMode(h)
	f.setMethod()
	f.Size = int64(f.usize)
	f.PackedSize = int64(f.csize)
}

// parseExtra walks the extra fields (APPNOTE 4.5), bounds-checked: a field
// whose length overruns the block ends the walk.
func (f *file) parseExtra(h *header, name, extra []byte) {
	var nt bool // NTFS times take precedence over "UT", which beats DOS
	for len(extra) >= 4 {
		id := le.Uint16(extra)
		n := int(le.Uint16(extra[2:]))
		if 4+n > len(extra) {
			break
		}
		b := extra[4 : 4+n]
		extra = extra[4+n:]
		switch id {
		case extraZip64:
			// APPNOTE 4.5.3: a value is present only when its header field
			// is saturated; the local header carries both sizes.
			f.zip64 = true
			f.badZip64 = zip64Disagrees(h, b)
			if h.usize == 0xffffffff || !h.central {
				if len(b) >= 8 {
					f.usize, b = le.Uint64(b), b[8:]
				}
			}
			if h.csize == 0xffffffff || !h.central {
				if len(b) >= 8 {
					f.csize, b = le.Uint64(b), b[8:]
				}
			}
			if h.central && h.offset == 0xffffffff && len(b) >= 8 {
				f.headerOff, b = int64(le.Uint64(b)), b[8:]
			}
			if h.central && h.disk == 0xffff && len(b) >= 4 {
				f.disk = le.Uint32(b)
			}
		case extraNTFS:
			// 4 reserved bytes, then tag/size attributes; tag 1 holds
			// mtime, atime, ctime as FILETIMEs.
			if len(b) < 4 {
				break
			}
			b = b[4:]
			for len(b) >= 4 {
				tag, sz := le.Uint16(b), int(le.Uint16(b[2:]))
				if 4+sz > len(b) {
					break
				}
				if tag == 1 && sz >= 24 {
					v := b[4:]
					f.Modified = meta.Filetime(le.Uint64(v))
					f.Accessed = meta.Filetime(le.Uint64(v[8:]))
					f.Created = meta.Filetime(le.Uint64(v[16:]))
					nt = true
				}
				b = b[4+sz:]
			}
		case extraExtTime:
			// Info-ZIP "UT": flags, then the times the flags announce; the
			// central copy holds only mtime whatever the flags say.
			if nt || len(b) < 1 {
				break
			}
			fl := b[0]
			b = b[1:]
			if fl&1 != 0 && len(b) >= 4 {
				f.Modified = time.Unix(int64(int32(le.Uint32(b))), 0).UTC()
				b = b[4:]
			}
			if fl&2 != 0 && len(b) >= 4 {
				f.Accessed = time.Unix(int64(int32(le.Uint32(b))), 0).UTC()
				b = b[4:]
			}
			if fl&4 != 0 && len(b) >= 4 {
				f.Created = time.Unix(int64(int32(le.Uint32(b))), 0).UTC()
			}
		case extraUnicodePath:
			// version 1, CRC-32 of the raw header name, UTF-8 name. A CRC
			// mismatch means the name was changed by a tool unaware of the
			// field: the raw name wins (Info-ZIP's rule).
			if len(b) >= 5 && b[0] == 1 && f.flags&flagUTF8 == 0 &&
				le.Uint32(b[1:]) == crc32.ChecksumIEEE(name) && utf8.Valid(b[5:]) && len(b) > 5 {
				f.Name = string(cutNUL(b[5:]))
			}
		case extraAES:
			// WinZip AE-x: version(2) "AE" strength(1) method(2).
			if len(b) >= 7 && h.method == methodAES {
				f.aes = true
				f.aesVer = le.Uint16(b)
				f.aesStrength = b[4]
				f.method = le.Uint16(b[5:])
				switch b[4] {
				case 1:
					f.Method = "AES-128"
				case 2:
					f.Method = "AES-192"
				case 3:
					f.Method = "AES-256"
				default:
					f.Method = "AES-" + itoa(int(b[4]))
				}
			}
		case extraStrong:
			// Format(2) AlgID(2) Bitlen(2) Flags(2) [certificate data].
			if len(b) >= 8 {
				f.strongAlg = le.Uint16(b[2:])
				f.strongFlags = le.Uint16(b[6:])
			}
		}
	}
}

// setMethod names the method, with the encryption in front as 7-Zip does.
func (f *file) setMethod() {
	m := methodName(f.method)
	switch {
	case f.aes:
		f.Method = f.Method + " (" + m + ")"
	case f.flags&flagStrong != 0 && f.Encrypted:
		alg := ""
		if f.strongAlg != 0 {
			alg = " " + zipcrypto.AlgName(f.strongAlg)
		}
		f.Method = "PKWARE strong encryption" + alg + " (" + m + ")"
	case f.Encrypted:
		f.Method = "ZipCrypto (" + m + ")"
	default:
		f.Method = m
	}
}

// setMode derives the file mode from the external attributes: the Unix
// mode in the high 16 bits when made on Unix, else MS-DOS attributes
// (APPNOTE 4.4.2, 4.4.15).
func (f *file) setMode(h *header) {
	host := h.madeBy >> 8
	unix := h.extAttr >> 16
	var m fs.FileMode
	switch {
	case h.central && (host == hostUnix || host == hostOSX) && unix != 0:
		// Pipes, devices and sockets come out as regular files holding
		// the stored data, as 7-Zip extracts them (zip records stdin as
		// a pipe).
		m = meta.UnixEntryMode(unix)
	default:
		m = meta.WinMode(h.extAttr)
		f.dirAttr = m.IsDir()
	}
	if strings.HasSuffix(f.Name, "/") || (f.dirAttr && f.usize == 0) {
		// A directory's mode as the archive states it (a Unix mode of
		// type directory, or DOS attributes with the directory bit) is
		// kept, 0000 included: Extract makes directories usable while
		// it fills them and applies their mode at the end. Only when
		// the name alone makes the directory are bits meant for a file
		// (0644, or none) given the search bits.
		if !m.IsDir() {
			m = m&^fs.ModeType | fs.ModeDir
			if p := m.Perm(); p == 0o644 || p == 0 {
				m = m&^fs.ModePerm | 0o755
			}
		}
	} else if f.dirAttr {
		// A DOS directory bit on an entry with data: 7-Zip treats it as
		// a file; so do we.
		m = m&^fs.ModeDir | 0o644
	}
	f.Mode = m
	if m&fs.ModeSymlink != 0 {
		f.Link = arc.LinkSymlink
	}
}

// parseCentral decodes the fixed part of a central directory header.
func parseCentral(b []byte, h *header) (nameLen, extraLen, commentLen int) {
	*h = header{
		madeBy:  le.Uint16(b[4:]),
		flags:   le.Uint16(b[8:]),
		method:  le.Uint16(b[10:]),
		dosTime: le.Uint16(b[12:]),
		dosDate: le.Uint16(b[14:]),
		crc:     le.Uint32(b[16:]),
		csize:   le.Uint32(b[20:]),
		usize:   le.Uint32(b[24:]),
		disk:    le.Uint16(b[34:]),
		extAttr: le.Uint32(b[38:]),
		offset:  le.Uint32(b[42:]),
		central: true,
	}
	return int(le.Uint16(b[28:])), int(le.Uint16(b[30:])), int(le.Uint16(b[32:]))
}

// parseLocal decodes the fixed part of a local file header.
func parseLocal(b []byte, h *header) (nameLen, extraLen int) {
	*h = header{
		flags:   le.Uint16(b[6:]),
		method:  le.Uint16(b[8:]),
		dosTime: le.Uint16(b[10:]),
		dosDate: le.Uint16(b[12:]),
		crc:     le.Uint32(b[14:]),
		csize:   le.Uint32(b[18:]),
		usize:   le.Uint32(b[22:]),
	}
	return int(le.Uint16(b[26:])), int(le.Uint16(b[28:]))
}
