// Package sevenzip reads 7z archives (7-Zip's DOC/7zFormat.txt): the
// signature header, plain and encoded (compressed, encrypted) headers, the
// coder graph of each folder, and the files stored in the folders'
// substreams. Archives are random access only: 7z keeps its header at the
// end, so a forward-only reader cannot work.
//
// Coders: Copy, LZMA, LZMA2, PPMd (H, 7z range coder), BZip2, Deflate,
// Deflate64, 7zAES, the branch filters BCJ, BCJ2, ARM, ARMT, ARM64, PPC,
// SPARC, IA64, RISCV and Delta. Any other method ID fails with an error
// matching errs.ErrUnsupported that names the ID.
//
// # Security
//
// Every count in the header (folders, coders, streams, substreams, files)
// is checked against the bytes left in the header before anything is
// allocated for it; coder graphs are bounded (64 coders/streams) and
// checked for unconnected inputs, doubly bound streams and cycles; pack
// streams must lie inside the archive. Decoder windows are bounded by
// Limits.MaxDictionary and the decoded size, PPMd models and encoded
// headers by Limits.MaxMemory. AES key derivation is refused above 2^24
// rounds, as 7-Zip does.
package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/go-unarc/unarc/crc32x"
	"github.com/go-unarc/unarc/internal/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Format registers 7z with the root package.
var Format = arc.Format{
	Name:      "7z",
	Magic:     [][]byte{signature[:]},
	Sniff:     Sniff,
	Open:      openArchive,
	NewReader: NewReader,
}

func openArchive(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
	a, err := Open(ra, size, cfg)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return a, nil
}

// signature starts every 7z archive (and its signature header).
var signature = [6]byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}

// Signature header layout (32 bytes):
//
//	0  6  signature
//	6  2  version (major 0, minor 2..4)
//	8  4  CRC-32 of bytes 12..31
//	12 8  next header offset, from byte 32
//	20 8  next header size
//	28 4  CRC-32 of the next header
const sigHeaderSize = 32

// sfxScanLimit bounds how far into a file Open looks for the signature
// behind an SFX stub or other prepended data.
const sfxScanLimit = 64 << 20

// sniffScanLimit is the same bound for Sniff, which runs on every input.
const sniffScanLimit = 4 << 20

// NewReader fails: 7z stores its header at the end of the archive, so it
// cannot be read forward-only. Use Open over an io.ReaderAt (or spool the
// stream to a temporary file first).
func NewReader(r io.Reader, cfg *arc.Config) (arc.Reader, error) {
	return nil, errs.Unsupported("7z needs random access (its header is at the end); use Open on a file or io.ReaderAt")
}

// Sniff reports whether ra holds a 7z archive, possibly behind an SFX stub.
func Sniff(ra io.ReaderAt, size int64) bool {
	_, _, err := findSignature(ra, size, sniffScanLimit)
	return err == nil
}

type startHeader struct {
	nextOff  int64
	nextSize int64
	nextCRC  uint32
}

// checkStart validates a candidate signature header at b.
func checkStart(b []byte, size, at int64) (startHeader, bool) {
	var h startHeader
	if !bytes.Equal(b[:6], signature[:]) || b[6] != 0 {
		return h, false
	}
	if crc32.ChecksumIEEE(b[12:32]) != binary.LittleEndian.Uint32(b[8:]) {
		return h, false
	}
	off := binary.LittleEndian.Uint64(b[12:])
	n := binary.LittleEndian.Uint64(b[20:])
	if off > 1<<62 || n > 1<<62 {
		return h, false
	}
	h = startHeader{int64(off), int64(n), binary.LittleEndian.Uint32(b[28:])}
	return h, true
}

// findSignature returns the offset of the first valid signature header
// within the first limit bytes.
func findSignature(ra io.ReaderAt, size, limit int64) (int64, startHeader, error) {
	var hdr [sigHeaderSize]byte
	if n, _ := ra.ReadAt(hdr[:], 0); n == sigHeaderSize {
		if h, ok := checkStart(hdr[:], size, 0); ok {
			return 0, h, nil
		}
	}
	const chunk = 64 << 10
	bufp := pool.Get(chunk + sigHeaderSize)
	defer pool.Put(bufp)
	buf := (*bufp)[:chunk+sigHeaderSize]
	truncated := false
	for base := int64(0); base < size && base < limit; base += chunk {
		n, _ := ra.ReadAt(buf, base)
		b := buf[:n]
		for i := 0; i < n && i < chunk; {
			j := bytes.IndexByte(b[i:], '7')
			if j < 0 || i+j >= chunk {
				break
			}
			i += j
			if i+sigHeaderSize <= n {
				if h, ok := checkStart(b[i:], size, base+int64(i)); ok && (i > 0 || base > 0) {
					return base + int64(i), h, nil
				}
			} else if i+6 <= n && bytes.Equal(b[i:i+6], signature[:]) {
				truncated = true
			}
			i++
		}
	}
	if truncated {
		return 0, startHeader{}, errs.Truncated("7z signature header")
	}
	return 0, startHeader{}, fmt.Errorf("%w: no 7z signature", errs.ErrFormat)
}

// Archive is an open 7z archive.
type Archive struct {
	ra      io.ReaderAt
	size    int64
	base    int64 // file offset of byte 32 of the signature header
	cfg     arc.Config
	si      *streamsInfo
	entries []*arc.Entry
	locs    []location

	mu     sync.Mutex
	idle   []*folderReader // positioned decoders ready for reuse
	pw     string          // archive-wide password, once resolved
	hasPW  bool
	closed bool

	folderStarts int // decoders started (tests check solid reads decode once)
}

// location says where an entry's data is.
type location struct {
	folder int   // -1: no data (empty file, directory)
	offset int64 // within the folder's output
}

// maxIdle bounds the positioned folder decoders kept for reuse.
const maxIdle = 4

// Open reads the archive's headers. cfg may be nil.
func Open(ra io.ReaderAt, size int64, cfg *arc.Config) (*Archive, error) {
	a := &Archive{}
	if cfg != nil {
		a.cfg = *cfg
	}
	a.cfg.Limits = a.cfg.Limits.WithDefaults()
	ra, size, err := joinVolumes(ra, size, &a.cfg)
	if err != nil {
		return nil, err
	}
	a.ra, a.size = ra, size
	sigOff, sh, err := findSignature(ra, size, sfxScanLimit)
	if err != nil {
		return nil, err
	}
	a.base = sigOff + sigHeaderSize
	if sh.nextSize == 0 {
		return a, nil // empty archive
	}
	end := a.base + sh.nextOff + sh.nextSize
	if sh.nextOff > size || end > size || end < a.base {
		if _, _, ok := volumeNumber(a.cfg.Name); ok {
			return nil, errs.Truncated("7z header lies beyond the last volume found")
		}
		return nil, errs.Truncated("7z header lies beyond the end of the archive")
	}
	hdr := make([]byte, sh.nextSize)
	if _, err := ra.ReadAt(hdr, a.base+sh.nextOff); err != nil {
		return nil, errs.EOF(err, "7z header")
	}
	if crc32.ChecksumIEEE(hdr) != sh.nextCRC {
		return nil, fmt.Errorf("%w: 7z header CRC mismatch", errs.ErrCorrupt)
	}
	if err := a.parseHeader(hdr); err != nil {
		return nil, err
	}
	a.resolveLinks()
	return a, nil
}

// parseHeader decodes encoded headers until a plain one, then parses it.
func (a *Archive) parseHeader(hdr []byte) error {
	for depth := 0; ; depth++ {
		r := &hreader{b: hdr}
		switch id := r.number(); id {
		case idHeader:
			return a.parsePlain(r)
		case idEncodedHeader:
			if depth > 4 {
				return errs.Corrupt("7z: encoded headers nested too deep")
			}
			si := r.readStreamsInfo()
			if r.err != nil {
				return r.err
			}
			var err error
			if hdr, err = a.decodeHeader(si); err != nil {
				return err
			}
		default:
			if r.err != nil {
				return r.err
			}
			return errs.Corrupt("7z: header starts with property 0x%02x", id)
		}
	}
}

// decodeHeader unpacks an encoded header (every folder, concatenated).
func (a *Archive) decodeHeader(si *streamsInfo) ([]byte, error) {
	var out bytes.Buffer
	var total int64
	for fi := range si.folders {
		total += si.folders[fi].size()
	}
	if total > 0 && total <= 1<<20 {
		out.Grow(int(total)) // else grow as data really arrives
	}
	for fi := range si.folders {
		f := &si.folders[fi]
		if f.size() > a.cfg.Limits.MaxMemory {
			return nil, errs.Limit("7z: encoded header of %d bytes", f.size())
		}
		if err := a.checkPack(si, fi); err != nil {
			return nil, err
		}
		fr, err := a.newFolderReader(si, fi, a.headerPassword)
		if err != nil {
			return nil, err
		}
		var v io.Reader = fr
		if f.hasCRC {
			v = crc32x.NewCRC32(fr, f.crc, f.size())
		} else {
			v = crc32x.NewSize(fr, f.size())
		}
		_, err = out.ReadFrom(v)
		fr.Close()
		if err != nil {
			if fr.encrypt && (errors.Is(err, errs.ErrChecksum) || errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrTruncated)) {
				return nil, fmt.Errorf("%w: 7z header does not decrypt (%v)", errs.ErrPassword, err)
			}
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// checkPack verifies that folder fi's pack streams lie inside the archive.
func (a *Archive) checkPack(si *streamsInfo, fi int) error {
	f := &si.folders[fi]
	for k := range f.packed {
		pi := f.firstPack + k
		end := a.base + si.packPos + si.packOff[pi] + si.packSizes[pi]
		if end > a.size || end < a.base {
			return errs.Truncated("7z pack stream beyond the end of the archive")
		}
	}
	return nil
}

// headerPassword resolves the password for encrypted headers.
func (a *Archive) headerPassword() (string, error) {
	return a.password(nil)
}

func (a *Archive) password(e *arc.Entry) (string, error) {
	a.mu.Lock()
	if a.hasPW {
		pw := a.pw
		a.mu.Unlock()
		return pw, nil
	}
	a.mu.Unlock()
	if a.cfg.Password == nil {
		return "", fmt.Errorf("%w: 7z data is encrypted", errs.ErrPasswordRequired)
	}
	pw, err := a.cfg.Password(e)
	if err != nil {
		return "", err
	}
	if pw == "" {
		return "", fmt.Errorf("%w: 7z data is encrypted", errs.ErrPasswordRequired)
	}
	if e == nil { // the header password serves every entry too
		a.mu.Lock()
		a.pw, a.hasPW = pw, true
		a.mu.Unlock()
	}
	return pw, nil
}

func (a *Archive) parsePlain(r *hreader) error {
	id := r.number()
	if id == idArchiveProperties {
		for r.err == nil {
			if t := r.number(); t == idEnd {
				break
			}
			r.skip(r.number())
		}
		id = r.number()
	}
	if id == idAdditionalStreamsInfo {
		r.readStreamsInfo() // never written by 7-Zip; parsed to skip it
		id = r.number()
	}
	si := &streamsInfo{}
	if id == idMainStreamsInfo {
		si = r.readStreamsInfo()
		id = r.number()
	}
	if r.err != nil {
		return r.err
	}
	var files []fileInfo
	if id == idFilesInfo {
		files = r.readFilesInfo(len(si.subSizes))
		id = r.number()
	}
	if r.err != nil {
		return r.err
	}
	if id != idEnd {
		return errs.Corrupt("7z header: unexpected property 0x%02x", id)
	}
	if len(files) == 0 && len(si.subSizes) > 0 {
		return errs.Corrupt("7z header: streams without files")
	}
	for fi := range si.folders {
		if err := a.checkPack(si, fi); err != nil {
			return err
		}
	}
	a.si = si
	return a.buildEntries(files)
}

func (a *Archive) buildEntries(files []fileInfo) error {
	si := a.si
	// Walk substreams in folder order.
	fi, sub, k := 0, 0, 0
	var off int64
	methods := make([]string, len(si.folders)) // named once per folder
	for i := range files {
		f := &files[i]
		if f.isAnti {
			continue
		}
		e := &arc.Entry{
			Name:       strings.TrimPrefix(f.name, "./"),
			Modified:   f.mtime,
			Created:    f.ctime,
			Accessed:   f.atime,
			PackedSize: 0,
			Index:      len(a.entries),
		}
		loc := location{folder: -1}
		if f.hasStream {
			for fi < len(si.folders) && sub >= si.folders[fi].numSub {
				fi++
				sub = 0
				off = 0
			}
			if fi >= len(si.folders) {
				return errs.Corrupt("7z header: more files than streams")
			}
			fo := &si.folders[fi]
			loc = location{folder: fi, offset: off}
			e.Size = si.subSizes[k]
			e.HasCRC32, e.CRC32 = si.subHasCRC[k], si.subCRC[k]
			if methods[fi] == "" {
				methods[fi] = folderMethod(fo)
			}
			e.Method = methods[fi]
			e.Solid = fo.numSub > 1
			e.PackedSize = -1
			if fo.numSub == 1 {
				e.PackedSize = 0
				for p := range fo.packed {
					e.PackedSize += si.packSizes[fo.firstPack+p]
				}
			}
			for c := range fo.coders {
				if fo.coders[c].method == mAES {
					e.Encrypted = true
				}
			}
			off += e.Size
			sub++
			k++
		} else if !f.isDir {
			e.HasCRC32 = true // an empty file: CRC of nothing is 0
		}
		e.Mode = fileMode(f)
		a.entries = append(a.entries, e)
		a.locs = append(a.locs, loc)
	}
	return nil
}

// folderMethod names a folder's coders as 7-Zip lists them, outermost
// (the one producing the data) first.
func folderMethod(f *folder) string {
	names := make([]string, 0, len(f.coders))
	for i := range f.coders {
		names = append(names, methodName(&f.coders[i]))
	}
	return strings.Join(names, " ")
}

// Windows attribute bits and the Unix extension 7-Zip (p7zip, 7zz) uses:
// with bit 15 set, the high 16 bits hold st_mode.
const (
	attrReadOnly  = 0x01
	attrDirectory = 0x10
	attrUnixExt   = 0x8000
)

func fileMode(f *fileInfo) fs.FileMode {
	isDir := f.isDir || (f.hasAttrib && f.attrib&attrDirectory != 0)
	var m fs.FileMode = 0o644
	if isDir {
		m = 0o755 | fs.ModeDir
	}
	if f.hasAttrib && f.attrib&attrUnixExt != 0 {
		u := f.attrib >> 16
		m = fs.FileMode(u & 0o777)
		switch u & 0xF000 {
		case 0x4000:
			m |= fs.ModeDir
		case 0xA000:
			m |= fs.ModeSymlink
		}
		if u&0o4000 != 0 {
			m |= fs.ModeSetuid
		}
		if u&0o2000 != 0 {
			m |= fs.ModeSetgid
		}
		if u&0o1000 != 0 {
			m |= fs.ModeSticky
		}
		if isDir {
			m |= fs.ModeDir
		}
	} else if f.hasAttrib && f.attrib&attrReadOnly != 0 {
		m &^= 0o222
	}
	return m
}

// resolveLinks reads the targets of symlinks (7-Zip stores them as the
// entry's content). Links that cannot be read yet (encrypted, no
// password) keep an empty target; reading the entry gives the error.
func (a *Archive) resolveLinks() {
	for i, e := range a.entries {
		if e.Mode&fs.ModeSymlink == 0 {
			continue
		}
		e.Link = arc.LinkSymlink
		if e.Size > 64<<10 {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err == nil {
			e.LinkTarget = string(b)
		}
	}
}

// Entries lists the archive's entries in header order.
func (a *Archive) Entries() []*arc.Entry { return a.entries }

// Comment returns "": 7z has no archive comment.
func (a *Archive) Comment() string { return "" }

// Close releases the cached folder decoders. Readers still open keep
// working until closed.
func (a *Archive) Close() error {
	a.mu.Lock()
	idle := a.idle
	a.idle = nil
	a.closed = true
	a.mu.Unlock()
	for _, fr := range idle {
		fr.Close()
	}
	return nil
}
