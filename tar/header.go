package tar

import (
	"archive/tar"
	"io/fs"
	"strings"

	"github.com/go-unarc/unarc/arc"
)

const blockSize = 512

// IsHeader reports whether b starts with a tar header block: its checksum
// (the unsigned sum of the block with the checksum field read as spaces,
// or the signed sum some old tars wrote) matches the octal value stored,
// and the magic is POSIX ustar ("ustar\x00"), GNU ("ustar  \x00") or
// absent, as in V7 tar, whose magic bytes are zero. An all-zero block (the
// end of an archive) is not a header.
func IsHeader(b []byte) bool {
	if len(b) < blockSize {
		return false
	}
	b = b[:blockSize]
	magic := string(b[257:265])
	switch {
	case magic[:6] == "ustar\x00", magic == "ustar  \x00":
	case magic == "\x00\x00\x00\x00\x00\x00\x00\x00":
		if b[0] == 0 { // a V7 header names its file
			return false
		}
	default:
		return false
	}
	want, ok := parseOctal(b[148:156])
	if !ok {
		return false
	}
	var u, s int64
	for i, c := range b {
		if i >= 148 && i < 156 {
			c = ' '
		}
		u += int64(c)
		s += int64(int8(c))
	}
	return want == u || want == s
}

// parseOctal reads a NUL- or space-terminated octal field, leading spaces
// allowed; at least one digit.
func parseOctal(f []byte) (int64, bool) {
	i := 0
	for i < len(f) && f[i] == ' ' {
		i++
	}
	var v int64
	digits := 0
	for ; i < len(f); i++ {
		c := f[i]
		if c == 0 || c == ' ' {
			break
		}
		if c < '0' || c > '7' {
			return 0, false
		}
		v = v<<3 | int64(c-'0')
		digits++
	}
	for ; i < len(f); i++ {
		if f[i] != 0 && f[i] != ' ' {
			return 0, false
		}
	}
	return v, digits > 0
}

// entryOf converts a header read by archive/tar. The header itself stays
// available as Entry.Sys for what Entry has no field for: uid, gid,
// uname, gname, device numbers, PAX records and xattrs.
func entryOf(h *tar.Header, method string, packed int64, index int) *arc.Entry {
	e := new(arc.Entry)
	fillEntry(e, h, method, packed, index)
	return e
}

// fillEntry is entryOf into e (an index fills a slab of them).
func fillEntry(e *arc.Entry, h *tar.Header, method string, packed int64, index int) {
	*e = arc.Entry{
		Name:       strings.TrimRight(h.Name, "/"),
		Modified:   h.ModTime,
		Accessed:   h.AccessTime,
		Mode:       fs.FileMode(h.Mode) & fs.ModePerm,
		Method:     method,
		PackedSize: packed,
		Index:      index,
		Sys:        h,
	}
	if e.Name == "" && h.Name != "" {
		e.Name = "/" // a name of only slashes stays absolute (Extract refuses it)
	}
	if h.Mode&0o4000 != 0 {
		e.Mode |= fs.ModeSetuid
	}
	if h.Mode&0o2000 != 0 {
		e.Mode |= fs.ModeSetgid
	}
	if h.Mode&0o1000 != 0 {
		e.Mode |= fs.ModeSticky
	}
	switch h.Typeflag {
	case tar.TypeDir:
		e.Mode |= fs.ModeDir
	case tar.TypeSymlink:
		e.Mode |= fs.ModeSymlink
		e.Link, e.LinkTarget = arc.LinkSymlink, h.Linkname
	case tar.TypeLink:
		e.Link, e.LinkTarget = arc.LinkHardlink, strings.TrimRight(h.Linkname, "/")
	case tar.TypeChar:
		e.Mode |= fs.ModeDevice | fs.ModeCharDevice
	case tar.TypeBlock:
		e.Mode |= fs.ModeDevice
	case tar.TypeFifo:
		e.Mode |= fs.ModeNamedPipe
	case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont: // archive/tar reads the old '\x00' as TypeReg
		e.Size = h.Size
	default:
		// Other types (GNU volume headers, unknown letters) hold data
		// like regular files, as GNU tar extracts them.
		e.Size = h.Size
	}
	if e.Size == 0 && e.Link == arc.LinkNone && e.Mode&fs.ModeType == 0 {
		e.PackedSize = 0
	}
}

// headerCost is what an entry is charged against MaxHeaderMemory: its
// strings, PAX records and a fixed part for the structures.
func headerCost(h *tar.Header) int64 {
	n := int64(512 + len(h.Name) + len(h.Linkname) + len(h.Uname) + len(h.Gname))
	for k, v := range h.PAXRecords {
		n += int64(len(k) + len(v) + 48)
	}
	n *= 2 // archive/tar also copies SCHILY.xattr records into Header.Xattrs
	return n
}

// isSparse reports a GNU sparse file (old GNU 'S' or PAX GNU.sparse.*),
// whose stored data is shorter than its size.
func isSparse(h *tar.Header) bool {
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}
