package tar

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Header block layout (byte ranges of the 512-byte block):
//
//	V7:    name 0:100, mode 100:108, uid 108:116, gid 116:124,
//	       size 124:136, mtime 136:148, chksum 148:156, typeflag 156,
//	       linkname 157:257
//	ustar: magic 257:263 "ustar\x00", version 263:265, uname 265:297,
//	       gname 297:329, devmajor 329:337, devminor 337:345,
//	       prefix 345:500
//	star:  ustar's magic, prefix 345:476, atime 476:488, ctime 488:500,
//	       trailer 508:512 "tar\x00"
//	GNU:   magic 257:263 "ustar ", version 263:265 " \x00", then
//	       ustar's fields up to 345, atime 345:357, ctime 357:369,
//	       four sparse entries 386:482 (offset 12, length 12 each),
//	       isextended 482, realsize 483:495
const blockSize = 512

// The format bits of tar.Format. archive/tar keeps V7 and star unexported
// (1 and 16); only the exported ones reach a Header.
const (
	fmtV7    tar.Format = 1
	fmtUSTAR            = tar.FormatUSTAR
	fmtPAX              = tar.FormatPAX
	fmtGNU              = tar.FormatGNU
	fmtSTAR  tar.Format = 16
)

// maxSpecial caps a PAX header's, a GNU long name's and a sparse map's
// bytes, as archive/tar and libarchive do.
const maxSpecial = 1 << 20

// maxSparse caps a sparse map's entries (maxSpecial caps them first in
// every encoding; this is the second wall archive/tar also has).
const maxSparse = 1 << 20

var (
	errHeader     = errs.Corrupt("tar: invalid header")
	errTooLong    = errs.Corrupt("tar: PAX header or GNU long name longer than 1 MiB")
	errSparseLong = errs.Corrupt("tar: sparse map too long")
	errMissData   = errs.Corrupt("tar: sparse file references non-existent data")
	errUnrefData  = errs.Corrupt("tar: sparse file contains unreferenced data")
)

// headerReader reads a tar stream's headers and entry data as
// archive/tar's Reader does (the same Header values, the same errors at
// the same places, reading no further than a header and its padding),
// but skips data into a buffer of its own or by offset, and allocates
// per entry only the Header and its strings (PAX records, long names and
// sparse maps cost more, as they must).
type headerReader struct {
	r      io.Reader
	sk     *seekReader // r, when data is skipped by moving its offset
	remain int64       // the current entry's stored data not yet read
	pad    int64       // zero padding after it
	sp     sparseReader
	err    error // sticky, as archive/tar's
	blk    [blockSize]byte
	skip   *[]byte // pooled, for skipping data of a stream that cannot seek
	uname  string  // the last user and group names, shared by the
	gname  string  // headers that repeat them
}

// reset starts reading r, keeping the skip buffer.
func (t *headerReader) reset(r io.Reader) {
	sk, _ := r.(*seekReader)
	*t = headerReader{r: r, sk: sk, skip: t.skip}
}

// buffer is the pooled buffer that skipped data is read into.
func (t *headerReader) buffer() []byte {
	if t.skip == nil {
		t.skip = pool.Get(32 << 10)
	}
	return *t.skip
}

// release drops the stream and gives the skip buffer back.
func (t *headerReader) release() {
	pool.Put(t.skip)
	*t = headerReader{}
}

// Next returns the next header, PAX global headers included (their
// Typeflag is tar.TypeXGlobalHeader); io.EOF after the last.
func (t *headerReader) Next() (*tar.Header, error) {
	if t.err != nil {
		return nil, t.err
	}
	h, err := t.next()
	t.err = err
	return h, err
}

func (t *headerReader) next() (*tar.Header, error) {
	var pax map[string]string
	var longName, longLink string
	format := fmtUSTAR | fmtPAX | fmtGNU
	for {
		if err := t.skipRest(); err != nil {
			return nil, err
		}
		h, raw, err := t.readHeader()
		if err != nil {
			return nil, err
		}
		if err := t.setData(h); err != nil {
			return nil, err
		}
		format &= h.Format
		switch h.Typeflag {
		case tar.TypeXHeader, tar.TypeXGlobalHeader:
			format &= fmtPAX
			if pax, err = t.readPAX(); err != nil {
				return nil, err
			}
			if h.Typeflag == tar.TypeXGlobalHeader {
				_ = mergePAX(h, pax) // as archive/tar: a bad value in a global header is not an error
				g := &tar.Header{Name: h.Name, Typeflag: h.Typeflag, PAXRecords: h.PAXRecords, Format: format}
				g.Xattrs = h.Xattrs //lint:ignore SA1019 archive/tar fills it; Entry.Sys must look the same
				return g, nil
			}
		case tar.TypeGNULongName, tar.TypeGNULongLink:
			format &= fmtGNU
			b, err := t.readSpecial()
			if err != nil {
				return nil, err
			}
			if h.Typeflag == tar.TypeGNULongName {
				longName = cString(*b)
			} else {
				longLink = cString(*b)
			}
			pool.Put(b)
		default:
			if err := mergePAX(h, pax); err != nil {
				return nil, err
			}
			if longName != "" {
				h.Name = longName
			}
			if longLink != "" {
				h.Linkname = longLink
			}
			if h.Typeflag == 0 { // V7's regular file (TypeRegA); a trailing slash names a directory
				if strings.HasSuffix(h.Name, "/") {
					h.Typeflag = tar.TypeDir
				} else {
					h.Typeflag = tar.TypeReg
				}
			}
			if err := t.setData(h); err != nil { // PAX may have changed the size
				return nil, err
			}
			if err := t.readSparseMap(h, raw); err != nil {
				return nil, err
			}
			if format&fmtUSTAR != 0 && format&fmtPAX != 0 {
				format &= fmtUSTAR
			}
			h.Format = format
			return h, nil
		}
	}
}

// typeGNUDumpDir is GNU tar's 'D': a directory of an incremental
// archive, whose stored data lists the names it held (archive/tar has no
// name for it).
const typeGNUDumpDir = 'D'

// headerOnly: the types whose size field does not count stored data.
func headerOnly(flag byte) bool {
	switch flag {
	case tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo:
		return true
	}
	return false
}

// setData makes h's stored data the current entry's.
func (t *headerReader) setData(h *tar.Header) error {
	n := h.Size
	if headerOnly(h.Typeflag) {
		n = 0
	}
	if n < 0 {
		return errHeader
	}
	t.remain, t.pad = n, -n&(blockSize-1)
	t.sp = sparseReader{}
	return nil
}

// skipRest passes the rest of the current entry's data (the stream
// ending there is truncation) and its padding (ending there is the end
// of the archive, as archive/tar reads it).
func (t *headerReader) skipRest() error {
	if n := t.remain; n > 0 {
		t.remain = 0
		if err := t.discard(n); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	if n := t.pad; n > 0 {
		t.pad = 0
		if err := t.discard(n); err != nil {
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			return err
		}
	}
	return nil
}

// discard passes n bytes of the stream; io.EOF when it ends first.
func (t *headerReader) discard(n int64) error {
	if s := t.sk; s != nil {
		if n > s.size-s.pos {
			s.pos = s.size
			return io.EOF
		}
		s.pos += n
		return nil
	}
	buf := t.blk[:]
	if n > blockSize {
		buf = t.buffer()
	}
	for n > 0 {
		m, err := t.r.Read(buf[:min(n, int64(len(buf)))])
		n -= int64(m)
		if err != nil {
			if err == io.EOF && n == 0 {
				return nil
			}
			return err
		}
	}
	return nil
}

// readFull reads len(b) bytes of the stream: io.EOF when none came,
// io.ErrUnexpectedEOF when some did. Unlike io.ReadFull it keeps an
// error that comes with the last bytes (a limit guard's): a header
// block is charged like any other bytes.
func (t *headerReader) readFull(b []byte) error {
	n := 0
	for n < len(b) {
		m, err := t.r.Read(b[n:])
		n += m
		if err == io.EOF {
			if n == len(b) {
				return nil
			}
			if n == 0 {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readHeader reads the next header block; io.EOF at the end of the
// archive (the stream ending at a block boundary, or two zero blocks).
// raw is the block's own format, which the old GNU sparse map needs.
func (t *headerReader) readHeader() (h *tar.Header, raw tar.Format, err error) {
	b := &t.blk
	if err := t.readFull(b[:]); err != nil {
		return nil, 0, err
	}
	if allZero(b[:]) {
		if err := t.readFull(b[:]); err != nil {
			return nil, 0, err
		}
		if allZero(b[:]) {
			return nil, 0, io.EOF
		}
		return nil, 0, errHeader // a zero block, then a non-zero one
	}
	raw = blockFormat(b)
	if raw == 0 {
		return nil, 0, errHeader
	}
	var p numParser
	h = &tar.Header{
		Typeflag: b[156],
		Name:     cString(b[0:100]),
		Linkname: cString(b[157:257]),
		Size:     p.numeric(b[124:136]),
		Mode:     p.numeric(b[100:108]),
		Uid:      int(p.numeric(b[108:116])),
		Gid:      int(p.numeric(b[116:124])),
		ModTime:  time.Unix(p.numeric(b[136:148]), 0),
	}
	if raw == fmtV7 {
		return h, raw, p.err
	}
	h.Uname = t.intern(&t.uname, b[265:297])
	h.Gname = t.intern(&t.gname, b[297:329])
	h.Devmajor = p.numeric(b[329:337])
	h.Devminor = p.numeric(b[337:345])
	var prefix []byte
	switch raw {
	case fmtUSTAR | fmtPAX:
		h.Format = raw
		prefix = cBytes(b[345:500])
		// A strict ustar header is ASCII with NUL-terminated numbers;
		// the parse above is more liberal, the format guess is not.
		if !isASCII(b[:]) || b[135] != 0 || b[107] != 0 || b[115] != 0 || b[123] != 0 ||
			b[147] != 0 || b[336] != 0 || b[344] != 0 {
			h.Format = 0
		}
	case fmtSTAR:
		prefix = cBytes(b[345:476])
		h.AccessTime = time.Unix(p.numeric(b[476:488]), 0)
		h.ChangeTime = time.Unix(p.numeric(b[488:500]), 0)
	case fmtGNU:
		h.Format = raw
		var q numParser // atime and ctime are parsed on their own (below)
		if b[345] != 0 {
			h.AccessTime = time.Unix(q.numeric(b[345:357]), 0)
		}
		if b[357] != 0 {
			h.ChangeTime = time.Unix(q.numeric(b[357:369]), 0)
		}
		// Go before 1.8 wrote a ustar prefix into old GNU headers: when
		// the times do not parse, the field is read as that prefix, as
		// archive/tar reads it (golang.org/issue/12594).
		if q.err != nil {
			h.AccessTime, h.ChangeTime = time.Time{}, time.Time{}
			if s := cBytes(b[345:500]); isASCII(s) {
				prefix = s
			}
			h.Format = 0
		}
	}
	if len(prefix) > 0 {
		h.Name = string(prefix) + "/" + h.Name
	}
	return h, raw, p.err
}

// blockFormat is the format b's checksum and magic say: 0 when the
// checksum (unsigned, or signed as some old tars wrote it) does not match.
func blockFormat(b *[blockSize]byte) tar.Format {
	var p numParser
	want := p.octal(b[148:156])
	var u, s int64
	for i, c := range b {
		if i >= 148 && i < 156 {
			c = ' '
		}
		u += int64(c)
		s += int64(int8(c))
	}
	if p.err != nil || (want != u && want != s) {
		return 0
	}
	switch magic := string(b[257:263]); {
	case magic == "ustar\x00" && string(b[508:512]) == "tar\x00":
		return fmtSTAR
	case magic == "ustar\x00":
		return fmtUSTAR | fmtPAX
	case magic == "ustar " && string(b[263:265]) == " \x00":
		return fmtGNU
	}
	return fmtV7
}

// intern returns the NUL-terminated string in f, reusing *last when it
// is the same (user and group names repeat from entry to entry).
func (t *headerReader) intern(last *string, f []byte) string {
	f = cBytes(f)
	if string(f) != *last {
		*last = string(f)
	}
	return *last
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// cBytes is f up to its first NUL (all of f without one).
func cBytes(f []byte) []byte {
	if i := bytes.IndexByte(f, 0); i >= 0 {
		return f[:i]
	}
	return f
}

func cString(f []byte) string { return string(cBytes(f)) }

// numParser reads numeric fields, remembering the first error (the
// header is then invalid).
type numParser struct{ err error }

// numeric reads base-256 (the first byte's top bit set: two's
// complement, big-endian, in the rest of the bits) or octal.
func (p *numParser) numeric(f []byte) int64 {
	if len(f) == 0 || f[0]&0x80 == 0 {
		return p.octal(f)
	}
	var inv byte // 0xff for a negative number: read its complement
	if f[0]&0x40 != 0 {
		inv = 0xff
	}
	var x uint64
	for i, c := range f {
		c ^= inv
		if i == 0 {
			c &= 0x7f
		}
		if x>>56 != 0 {
			p.err = errHeader
			return 0
		}
		x = x<<8 | uint64(c)
	}
	if x>>63 != 0 {
		p.err = errHeader
		return 0
	}
	if inv != 0 {
		return ^int64(x)
	}
	return int64(x)
}

// octal reads an octal field padded with spaces or NULs on either side,
// ending at its first NUL; empty is 0.
func (p *numParser) octal(f []byte) int64 {
	f = cBytes(bytes.Trim(f, " \x00"))
	var x uint64
	for _, c := range f {
		if c < '0' || c > '7' || x>>61 != 0 {
			p.err = errHeader
			return 0
		}
		x = x<<3 | uint64(c-'0')
	}
	return int64(x)
}

// isHeader reports whether b starts with a tar header block: its checksum
// (the unsigned sum of the block with the checksum field read as spaces,
// or the signed sum some old tars wrote) matches the octal value stored,
// and the magic is POSIX ustar ("ustar\x00"), GNU ("ustar  \x00") or
// absent, as in V7 tar, whose magic bytes are zero. An all-zero block (the
// end of an archive) is not a header.
func isHeader(b []byte) bool {
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
	return blockFormat((*[blockSize]byte)(b)) != 0
}

// entryOf converts a header (as archive/tar would fill it). The header stays
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
	case typeGNUDumpDir:
		// A directory of a GNU incremental archive (tar -g). Its data
		// is the dump listing (the names the directory held, for
		// restoring deletions), not content: Size says how much of it
		// is stored, as GNU tar lists it; nothing reads it.
		e.Mode |= fs.ModeDir
		e.Size = h.Size
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

// dotWarning is the warning for an entry that names the archive's root
// (".", "./") but is no directory: a file (with data or not), a link,
// a device. Nothing can be written there, so Extract refuses it; the
// warning says so when the archive is listed. nil for any other entry.
func dotWarning(e *arc.Entry) error {
	if path.Clean(e.Name) != "." || e.IsDir() && e.Link == arc.LinkNone {
		return nil
	}
	what := "file"
	switch {
	case e.Link == arc.LinkSymlink:
		what = "symlink"
	case e.Link != arc.LinkNone:
		what = "link"
	case e.Mode&fs.ModeType != 0:
		what = "special file"
	}
	return fmt.Errorf("%w: tar: entry %d, a %s of %d bytes, is named %q, the destination itself: it cannot be extracted", errs.ErrInsecurePath, e.Index, what, max(e.Size, 0), e.Name)
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
