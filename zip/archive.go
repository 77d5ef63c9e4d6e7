package zip

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/srcsize"
)

// Archive is random access to a ZIP archive through its central directory.
// The entry list is built once by NewArchive; Open may be called from
// several goroutines at once.
type Archive struct {
	ra      io.ReaderAt
	size    int64
	cfg     arc.Config
	files   []file
	entries []*arc.Entry
	comment string
	base    int64 // added to every stored offset (prepended data not accounted for)
	// diskStarts is set for spanned archives: the offset of each disk in
	// the joined volumes (see volume.go).
	diskStarts []int64
	// missing are the disks of a spanned set that are not there (volume.go).
	missing []missingDisk
	warns   []error // Warnings (fixMu guards it once the Archive is open)
	// fixMu guards fixed, the entries whose local header names another
	// method (recoverMethod: nil means refused), and warns.
	fixMu    sync.Mutex
	fixed    map[int]*file
	keys     keyCache      // WinZip AES key derivations (crypt.go)
	workers  entryWorkers  // SetEntryWorkers (units.go)
	dirStart int64         // where the central directory starts (persist.go)
	cps      cpcache.Cache // Deflate checkpoints of seekable readers (seek.go)
	// ixCheck is what an open from an index left to check before an
	// entry is acted on (persist.go), or nil.
	ixCheck *indexfmt.Later
}

// directory is what the end records say about the central directory.
type directory struct {
	count   uint64 // entries
	size    uint64 // bytes
	offset  uint64 // as stored (relative to the archive start the writer saw)
	end     int64  // absolute offset where the directory must end
	disk    uint32 // this disk's number
	cdDisk  uint32 // disk where the directory starts
	comment string
	zip64   bool
	needed  uint16 // version needed to extract, from the Zip64 record
	// eocd is the 32-bit end record's offset (-1: none, the directory was
	// found after the local headers); commentLen its declared comment
	// length (comment may be shorter: cut).
	eocd       int64
	commentLen int
	scanned    bool    // found by scanLocals
	locOff     int64   // the Zip64 record's offset as the locator says (zip64)
	warns      []error // what was recovered from (Archive.Warnings)
}

func (d *directory) warn(err error) { d.warns = append(d.warns, err) }

// NewArchive reads the central directory of the ZIP archive in ra (size
// bytes). Prepended data (an SFX stub) is allowed, whether or not the
// writer adjusted the offsets for it.
//
// # Security
//
// The declared entry count is never trusted for allocation: the entry
// slice grows with the headers actually present, and a directory cannot
// be larger than the input.
func Open(ra io.ReaderAt, size int64, opts ...arc.Option) (*Archive, error) {
	if err := srcsize.Check(ra, size); err != nil {
		return nil, err
	}
	a := &Archive{ra: ra, size: size}
	if err := conf.Apply(&a.cfg, opts...); err != nil {
		return nil, err
	}
	d, err := findDirectory(ra, size)
	if err == errNoEnd {
		// No end record (cut, or its signature damaged): 7zz reads the
		// local headers from the start and the directory after them,
		// reporting the archive as damaged; we read what is there and
		// warn, as for a RAR without its end record.
		if d, err = scanLocals(ra, size); err != nil {
			return nil, noEnd(ra)
		}
		d.warn(errs.Truncated("no end of central directory record (cut or damaged); the directory was found after the local headers"))
	}
	if err != nil {
		return nil, err
	}
	a.comment = legacyText([]byte(d.comment), a.cfg.DecodeName)
	if d.disk != 0 || d.cdDisk != 0 {
		if err := a.joinVolumes(d.disk); err != nil {
			return nil, err
		}
		if d, err = findDirectoryFrom(a.ra, a.size, a.diskStarts[len(a.diskStarts)-2]); err != nil {
			if err == errNoEnd {
				err = errs.Corrupt("spanned ZIP: no end of central directory record in the joined volumes")
			}
			return nil, err
		}
	}
	err = a.readDirectory(d)
	if err == errNoDir && a.diskStarts == nil {
		// The end record does not lead to a directory: look after the
		// local headers, as 7-Zip does.
		d2, err2 := scanLocals(a.ra, a.size)
		if err2 != nil {
			return nil, errs.Corrupt("no central directory at offset %d", d.offset)
		}
		d2.warns = append(d.warns, errs.Corrupt("the end record does not lead to the central directory (offset %d, %d bytes); it was found after the local headers", d.offset, d.size))
		a.comment = legacyText([]byte(d.comment), a.cfg.DecodeName)
		a.files = nil
		err = a.readDirectory(d2)
	}
	if err != nil {
		return nil, err
	}
	if len(a.missing) > 0 {
		a.warns = append(a.warns, a.missingWarning())
	}
	a.readLinks()
	return a, nil
}

// noEnd is the error of an input with no end record and no directory
// after its local headers.
func noEnd(ra io.ReaderAt) error {
	// Local headers from the start but no end record: the archive was
	// cut (a download stopped, a disk filled), not something else.
	var lh [4]byte
	if _, err := ra.ReadAt(lh[:], 0); err == nil && (le.Uint32(lh[:]) == sigLocal || le.Uint32(lh[:]) == sigSpannedMark) {
		return errs.Truncated("ZIP: local headers but no end of central directory record (cut, or the record is damaged)")
	}
	return fmt.Errorf("%w: no end of central directory record", errs.ErrFormat)
}

// Warnings reports what the directory's bookkeeping got wrong and was
// recovered from (the root's Archive.Warnings): end records that disagree with the
// directory (its offset, size, entry count, a Zip64 record missing or
// not at its locator), data before or after the archive that its offsets
// do not account for, a cut comment, a missing end record (matching
// errs.ErrTruncated). Every entry listed can still be read exactly.
func (a *Archive) Warnings() []error {
	a.fixMu.Lock()
	defer a.fixMu.Unlock()
	return slices.Clip(a.warns)
}

// findDirectory locates the end of central directory record, scanning the
// last 64 KiB + 22 bytes backwards (the comment is at most 65,535 bytes),
// and the Zip64 records when a locator precedes it (APPNOTE 4.3.14-16).
//
// When the tail holds several end record signatures, the one used is the
// last that leads to a central directory, unless an earlier one that also
// does holds it in its comment: a second archive hidden in the comment of
// the first is not what the first's local headers, read from the start,
// lead to (7-Zip reads the headers from the start and finds the outer
// directory; so do we, without reading every local header).
// It returns errNoEnd when there is no end record at all.
func findDirectory(ra io.ReaderAt, size int64) (*directory, error) {
	return findDirectoryFrom(ra, size, 0)
}

// findDirectoryFrom is findDirectory looking no earlier than floor: in a
// joined spanned set, the start of the last disk, which holds the end
// records (the disks before it may be missing, volume.go).
func findDirectoryFrom(ra io.ReaderAt, size, floor int64) (*directory, error) {
	if size-floor < endLen {
		return nil, fmt.Errorf("%w: %d bytes is too short for a ZIP archive", errs.ErrFormat, size-floor)
	}
	n := int64(endLen + 65535 + end64LocLen)
	if n > size-floor {
		n = size - floor
	}
	bp := pool.Get(int(n))
	defer pool.Put(bp)
	buf := *bp
	start := size - n
	if _, err := ra.ReadAt(buf, start); err != nil && err != io.EOF {
		return nil, err
	}
	var chosen, first *directory
	for i := len(buf) - endLen; i >= 0; i-- {
		if buf[i] != 'P' || le.Uint32(buf[i:]) != sigEnd {
			continue
		}
		d := parseEnd(ra, buf, start, i)
		if first == nil {
			first = d
		}
		if !dirValid(ra, size, d) {
			continue
		}
		if chosen == nil || d.eocd+endLen+int64(d.commentLen) >= chosen.eocd+endLen {
			chosen = d
		}
	}
	if chosen == nil {
		chosen = first // readDirectory says what is wrong with it
	}
	if chosen == nil {
		return nil, errNoEnd
	}
	if chosen.commentLen > len(chosen.comment) {
		chosen.warn(errs.Notice(errs.Truncated(fmt.Sprintf("archive comment cut: %d of its %d bytes present", len(chosen.comment), chosen.commentLen))))
	} else if t := size - (chosen.eocd + endLen + int64(chosen.commentLen)); t > 0 {
		// 7zz: "There are data after the end of archive" (a warning).
		chosen.warn(errs.Notice(fmt.Errorf("%d bytes of data after the end of the archive", t)))
	}
	return chosen, nil
}

// errNoEnd and errNoDir are internal: no end record was found, or the end
// record does not lead to a central directory; Open then looks for the
// directory after the local headers (scanLocals).
var (
	errNoEnd = errs.Corrupt("no end of central directory record")
	errNoDir = errs.Corrupt("no central directory where the end record says")
)

// parseEnd reads the end record at buf[pos] (buf holds the archive from
// offset start) and the Zip64 records its locator points to.
func parseEnd(ra io.ReaderAt, buf []byte, start int64, pos int) *directory {
	e := buf[pos:]
	cl := int(le.Uint16(e[20:]))
	d := &directory{
		disk:       uint32(le.Uint16(e[4:])),
		cdDisk:     uint32(le.Uint16(e[6:])),
		count:      uint64(le.Uint16(e[10:])),
		size:       uint64(le.Uint32(e[12:])),
		offset:     uint64(le.Uint32(e[16:])),
		end:        start + int64(pos),
		eocd:       start + int64(pos),
		commentLen: cl,
	}
	d.comment = string(e[endLen : endLen+min(cl, len(e)-endLen)])
	if pos < end64LocLen || le.Uint32(buf[pos-end64LocLen:]) != sigEnd64Loc {
		return d
	}
	// A 32-bit record with no saturated field does not need Zip64.
	complete := le.Uint16(e[4:]) != 0xffff && le.Uint16(e[6:]) != 0xffff &&
		le.Uint16(e[8:]) != 0xffff && le.Uint16(e[10:]) != 0xffff &&
		d.size != 0xffffffff && d.offset != 0xffffffff
	loc := buf[pos-end64LocLen:]
	recOff := int64(le.Uint64(loc[8:]))
	locAbs := start + int64(pos-end64LocLen)
	var rec [end64Len]byte
	ok := func(off int64) bool {
		if off < 0 || off+end64Len > locAbs {
			return false
		}
		if _, err := ra.ReadAt(rec[:], off); err != nil {
			return false
		}
		return le.Uint32(rec[:]) == sigEnd64
	}
	// The record sits where the locator says, or (prepended data the
	// writer did not know about) directly before the locator.
	found := ok(recOff)
	if !found {
		recOff = locAbs - end64Len
		found = ok(recOff)
	}
	// A complete 32-bit record whose directory ends right at it owns the
	// 20 bytes before it: the "locator" is the tail of the last central
	// header (a name holding "PK\x06\x07"), not a record (APPNOTE 4.3.6:
	// the locator follows the Zip64 end record, after the directory).
	inDir := complete && d.size >= end64LocLen && d.size <= uint64(d.end) &&
		centralAt(ra, d.end+endLen, d.end-int64(d.size))
	switch {
	case !found && inDir:
		return d
	case !found && complete:
		d.warn(errs.Notice(errs.Corrupt("Zip64 locator without its end record; the 32-bit end record is used")))
		return d
	case !found:
		d.warn(errs.Corrupt("Zip64 end of central directory record missing"))
		return d
	}
	d64 := *d
	d64.zip64 = true
	d64.locOff = int64(le.Uint64(loc[8:]))
	d64.needed = le.Uint16(rec[14:])
	d64.disk = le.Uint32(rec[16:])
	d64.cdDisk = le.Uint32(rec[20:])
	d64.count = le.Uint64(rec[32:])
	d64.size = le.Uint64(rec[40:])
	d64.offset = le.Uint64(rec[48:])
	d64.end = recOff
	if complete && (d64.count != d.count || d64.size != d.size || d64.offset != d.offset) && dirValid(ra, locAbs+end64LocLen+endLen, d) {
		// Both records are complete and name different directories: the
		// "locator" is the end of something else, typically a file name
		// that ends the central directory. 7zz lists what the 32-bit
		// record names (it reads the directory that follows the local
		// headers), and so do we. Where that directory ends at the 32-bit
		// record, both "records" lie inside it: nothing to warn about.
		if !inDir {
			d.warn(errs.Notice(errs.Corrupt("Zip64 end record disagrees with the end of central directory record; the latter is used")))
		}
		return d
	}
	if l := le.Uint64(rec[4:]); l < end64Len-12 || uint64(recOff)+12+l != uint64(locAbs) {
		// 7zz: "Headers Error" and "There are data after the end of archive".
		d64.warn(errs.Notice(errs.Corrupt("Zip64 end record (%d bytes at %d) does not end at its locator (%d)", l, recOff, locAbs)))
	}
	return &d64
}

// dirValid reports whether d leads to a central directory: at the offset
// its size and position imply, or at the stored offset.
func dirValid(ra io.ReaderAt, size int64, d *directory) bool {
	if d.count == 0 && d.size == 0 {
		return true
	}
	if d.size <= uint64(d.end) && centralAt(ra, size, d.end-int64(d.size)) {
		return true
	}
	return d.offset < uint64(size) && centralAt(ra, size, int64(d.offset))
}

// scanLocals finds the central directory as 7-Zip does when no end record
// leads to it: local header after local header from the start of the
// archive, the directory right after the last entry, ending where the
// central headers stop. Entries with a data descriptor and no size in
// their local header end at the first signed descriptor whose packed size
// is their length. It returns errNoDir if the walk does not reach a
// central directory with as many headers as there were local headers (a
// directory cut short lists fewer: that is a truncated archive, not one
// whose end record alone is missing).
func scanLocals(ra io.ReaderAt, size int64) (*directory, error) {
	var h [localLen]byte
	off := int64(0)
	locals := uint64(0)
	if _, err := ra.ReadAt(h[:4], 0); err == nil && le.Uint32(h[:]) == sigSpannedMark {
		off = 4
	}
	for {
		if _, err := ra.ReadAt(h[:4], off); err != nil {
			return nil, errNoDir
		}
		sig := le.Uint32(h[:])
		if sig == sigCentral {
			break
		}
		if sig != sigLocal {
			return nil, errNoDir
		}
		locals++
		if _, err := ra.ReadAt(h[:], off); err != nil {
			return nil, errNoDir
		}
		flags := le.Uint16(h[6:])
		csize := uint64(le.Uint32(h[18:]))
		nl, el := int64(le.Uint16(h[26:])), int64(le.Uint16(h[28:]))
		data := off + localLen + nl + el
		zip64 := false
		if el >= 4 {
			xp := pool.Get(int(el))
			x := (*xp)[:el]
			_, err := ra.ReadAt(x, off+localLen+nl)
			if err != nil {
				pool.Put(xp)
				return nil, errNoDir
			}
			for len(x) >= 4 {
				id, n := le.Uint16(x), int(le.Uint16(x[2:]))
				if 4+n > len(x) {
					break
				}
				if id == extraZip64 && n >= 16 {
					zip64 = true
					if csize == 0xffffffff {
						csize = le.Uint64(x[12:])
					}
				}
				x = x[4+n:]
			}
			pool.Put(xp)
		}
		if data > size || csize > uint64(size-data) {
			return nil, errNoDir
		}
		off = data + int64(csize)
		if flags&flagDescriptor != 0 {
			var ok bool
			if csize == 0 {
				off, ok = findDescriptor(ra, size, data)
			} else {
				off, ok = skipDescriptor(ra, size, off, zip64)
			}
			if !ok {
				return nil, errNoDir
			}
		}
	}
	cdStart := off
	count := uint64(0)
	var c [centralLen]byte
	for {
		if _, err := ra.ReadAt(c[:], off); err != nil || le.Uint32(c[:]) != sigCentral {
			break
		}
		next := off + centralLen + int64(le.Uint16(c[28:])) + int64(le.Uint16(c[30:])) + int64(le.Uint16(c[32:]))
		if next > size {
			break
		}
		off = next
		count++
	}
	if count == 0 || count != locals {
		return nil, errNoDir
	}
	return &directory{count: count, size: uint64(off - cdStart), offset: uint64(cdStart), end: off, eocd: -1, scanned: true}, nil
}

// skipDescriptor returns the offset after the data descriptor at off (with
// or without signature, 32- or 64-bit sizes), which must be followed by a
// header signature.
func skipDescriptor(ra io.ReaderAt, size, off int64, zip64 bool) (int64, bool) {
	var b [28]byte
	n, _ := ra.ReadAt(b[:], off)
	p := b[:n]
	if len(p) >= 4 && le.Uint32(p) == sigDescriptor {
		p, off = p[4:], off+4
	}
	widths := [2]int{12, 20}
	if zip64 {
		widths = [2]int{20, 12}
	}
	for _, w := range widths {
		if len(p) >= w+4 && isSignature(p[w:]) {
			return off + int64(w), true
		}
	}
	return 0, false
}

// findDescriptor scans from data for the signed data descriptor of an
// entry whose local header has no size: the first whose packed size is
// the distance scanned and that a header signature follows. It returns
// the offset after the descriptor.
func findDescriptor(ra io.ReaderAt, size, data int64) (int64, bool) {
	bp := pool.Get(64 << 10)
	defer pool.Put(bp)
	buf := *bp
	for pos := data; pos < size; {
		n, err := ra.ReadAt(buf, pos)
		if n < 4 {
			return 0, false
		}
		b := buf[:n]
		for i := 0; ; {
			k := bytes.Index(b[i:], descSig)
			if k < 0 {
				break
			}
			i += k
			d := b[i:]
			if len(d) < 28 && err == nil {
				break // re-read from here
			}
			got := uint64(pos + int64(i) - data)
			if len(d) >= 20 && uint64(le.Uint32(d[8:])) == got && isSignature(d[16:]) {
				return pos + int64(i) + 16, true
			}
			if len(d) >= 28 && le.Uint64(d[8:]) == got && isSignature(d[24:]) {
				return pos + int64(i) + 24, true
			}
			i++
		}
		if err != nil {
			return 0, false
		}
		pos += int64(n) - 27 // a descriptor may straddle the buffer end
	}
	return 0, false
}

// readDirectory parses every central directory header into a.files.
//
// The end records are bookkeeping: when they are off (a wrong directory
// offset or size, a wrong entry count, junk between the directory and
// the end record) but the directory itself is intact, it is read as it
// is and the discrepancy is a warning, as 7zz lists and extracts such
// archives ("Headers Error"). What is refused is a directory that ends
// inside a header (a name, extra or comment length running past it) or
// breaks off before the entries its records announce.
func (a *Archive) readDirectory(d *directory) error {
	// Where the directory really starts tells how much data precedes the
	// archive (7-Zip's and archive/zip's rule); a writer that adjusted its
	// offsets (zip -A) makes the delta 0. Padding between directory and
	// end record breaks that guess, so fall back to the stored offset.
	start := int64(-1)
	if d.size <= uint64(d.end) {
		start = d.end - int64(d.size)
	}
	base := start - int64(d.offset)
	if a.diskStarts != nil {
		// Offsets are per disk; the directory's start is known from its end.
		base = 0
		if err := a.missingErr(d.cdDisk); err != nil {
			return err // the directory starts on a missing disk
		}
		if start < 0 || d.cdDisk >= uint32(len(a.diskStarts)) || a.diskStarts[d.cdDisk]+int64(d.offset) != start {
			return errs.Corrupt("spanned ZIP: central directory not where disk %d offset %d says", d.cdDisk, d.offset)
		}
	} else if !centralAt(a.ra, a.size, start) {
		switch {
		case d.count == 0 && d.size == 0:
			base, start = 0, d.end
		case d.offset < uint64(a.size) && a.centralAt(int64(d.offset)):
			base, start = 0, int64(d.offset)
			d.warn(errs.Notice(errs.Corrupt("the end record says the central directory is %d bytes; it starts at %d, %d bytes before the record", d.size, start, d.end-start)))
		case d.needed >= 62:
			// APPNOTE 7.3: version 6.2 encrypts the central directory.
			return errs.Unsupported("encrypted central directory (PKWARE strong encryption)")
		default:
			return errNoDir
		}
	}
	if start > d.end {
		return errNoDir
	}
	a.dirStart = start // the index digests [dirStart, size): directory and end records (persist.go)
	lim := &a.cfg.Bounds
	// The declared count is a claim: what is allocated up front is bounded
	// by what the directory's bytes can hold (46 bytes per header at
	// least), and the limits are checked against that.
	capN := min(d.count, uint64(d.end-start)/centralLen)
	if capN > uint64(lim.MaxEntries) {
		return errs.Limit("%d entries declared, above MaxEntries (%d)", capN, lim.MaxEntries)
	}
	if m := capN * uint64(entryMem); m > uint64(lim.MaxHeaderMemory) {
		return errs.Limit("%d entries need %d bytes of directory memory, above MaxHeaderMemory (%d)", capN, m, lim.MaxHeaderMemory)
	}
	if capN > 1<<16 {
		capN = 1 << 16 // larger directories grow by append, as they really hold entries
	}
	a.files = make([]file, 0, capN)
	// Memory of the index as it is built: the entries, their names,
	// comments and the pointer list.
	mem := int64(0)

	sec := io.NewSectionReader(a.ra, start, d.end-start)
	bs := dirBufPool.Get()
	defer dirBufPool.Put(bs)
	br := bs.br
	br.Reset(sec)
	defer br.Reset(nil)
	var fixed [centralLen]byte
	var h header
	scratch := bs.scratch
	defer func() { bs.scratch = scratch[:0] }()
	read := int64(0)
	avail := d.end - start
	stopped := false // at something that is not a central header
	for read < avail {
		if avail-read < 4 {
			stopped = true
			break
		}
		if _, err := io.ReadFull(br, fixed[:4]); err != nil {
			return errs.EOF(err, "central directory")
		}
		if le.Uint32(fixed[:]) != sigCentral {
			stopped = true
			break
		}
		if _, err := io.ReadFull(br, fixed[4:]); err != nil {
			return errs.Corrupt("central directory header %d runs past the end of the directory", len(a.files))
		}
		nl, el, cl := parseCentral(fixed[:], &h)
		need := nl + el + cl
		if read+int64(centralLen+need) > avail {
			// 7zz: "Unexpected end of archive", no entries.
			return errs.Corrupt("central directory header %d (%d bytes of name, extra and comment) runs past the end of the directory", len(a.files), need)
		}
		if cap(scratch) < need {
			scratch = make([]byte, need)
		}
		b := scratch[:need]
		if _, err := io.ReadFull(br, b); err != nil {
			return errs.EOF(err, "central directory header")
		}
		read += int64(centralLen + need)
		if int64(len(a.files)) >= lim.MaxEntries {
			return errs.Limit("more than MaxEntries (%d) entries in the central directory", lim.MaxEntries)
		}
		if mem += entryMem + int64(need); mem > lim.MaxHeaderMemory {
			return errs.Limit("central directory needs more than MaxHeaderMemory (%d bytes)", lim.MaxHeaderMemory)
		}
		a.files = append(a.files, file{})
		f := &a.files[len(a.files)-1]
		f.Index = len(a.files) - 1
		f.fill(&h, b[:nl], b[nl:nl+el], b[nl+el:], a.cfg.DecodeName, a.cfg.Name)
		if f.badZip64 {
			// 7zz: "Headers Error" (a warning); two readers taking the
			// header's or the extra field's sizes see different data.
			return errs.Corrupt("central directory header %d: Zip64 extra field sizes disagree with the header's", f.Index)
		}
		f.headerOff += base
		if a.diskStarts != nil {
			if f.disk >= uint32(len(a.diskStarts))-1 {
				return errs.Corrupt("central directory header %d: on disk %d of %d", f.Index, f.disk+1, len(a.diskStarts)-1)
			}
			f.headerOff += a.diskStarts[f.disk]
		}
	}
	n := uint64(len(a.files))
	countOK := n == d.count || (!d.zip64 && n&0xffff == d.count)
	if stopped {
		// Something else between the last header and the end record:
		// junk when the records' count or size is reached (7zz: "There
		// are data after the end of archive", a warning), a broken
		// directory when they say more headers follow.
		if !countOK && read < int64(d.size) {
			return errs.Corrupt("central directory header %d has a bad signature", len(a.files))
		}
		d.warn(errs.Notice(errs.Corrupt("%d bytes of unknown data between the central directory and its end record", avail-read)))
	}
	if !countOK && !d.scanned {
		d.warn(errs.Corrupt("the end record says %d entries; the central directory holds %d", d.count, n))
	}
	if read != int64(d.size) && !d.scanned && start == d.end-int64(d.size) {
		d.warn(errs.Notice(errs.Corrupt("the end record says the central directory is %d bytes; it is %d", d.size, read)))
	}
	if a.diskStarts == nil && base != 0 && len(a.files) > 0 {
		f0 := &a.files[0]
		switch {
		case !a.localAt(f0.headerOff) && a.localAt(f0.headerOff-base):
			// The directory's offset is wrong, the entries' are right
			// (7zz: "Unavailable start of archive", entries unreadable;
			// bsdtar and unzip read them: so do we).
			for i := range a.files {
				a.files[i].headerOff -= base
			}
			d.warn(errs.Notice(errs.Corrupt("the end record's central directory offset is off by %d bytes; the entries' offsets are right", -base)))
			base = 0
		case base == 4 && sigAt(a.ra, a.size, 0) == sigSpannedMark:
			// The spanning marker of a one-segment split archive
			// (APPNOTE 8.5.4) left out of the offsets: 7zz does not open
			// it; bsdtar and unzip read it, and so do we, silently.
		case base > 0:
			d.warn(errs.Notice(fmt.Errorf("%d bytes of data before the archive that its offsets do not count", base)))
		case base < 0:
			// Bytes the offsets count were removed from the front (a
			// stub cut off an archive zip -A adjusted): the local
			// headers are where the corrected offsets say.
			d.warn(errs.Notice(fmt.Errorf("the archive's offsets count %d bytes before it that are not there", -base)))
		}
	}
	if d.zip64 && a.diskStarts == nil && d.end-base != d.locOff {
		d.warn(errs.Notice(errs.Corrupt("the Zip64 locator says the Zip64 end record is at %d; it is at %d", d.locOff, d.end)))
	}
	a.base = base
	present := a.files
	if a.missing != nil {
		// Entries on a missing disk are never read; where they would lie
		// in the joined set is a guess (volume.go), so they are left out.
		present = nil
		for i := range a.files {
			if a.missingErr(a.files[i].disk) == nil {
				present = append(present, a.files[i])
			}
		}
	}
	if err := checkOverlap(present, start); err != nil {
		return err
	}
	a.entries = make([]*arc.Entry, len(a.files))
	for i := range a.files {
		a.entries[i] = &a.files[i].Entry
	}
	a.warns = append(a.warns, d.warns...)
	return nil
}

// entryMem is what one entry costs in the index besides its name and
// comment: the file value and its pointer in the entry list.
const entryMem = int64(unsafe.Sizeof(file{})) + 8

// checkOverlap refuses entries whose local header and data share bytes
// with another entry's, as Info-ZIP's unzip 6.0 does: that is how
// overlapping-file bombs (Fifield's "full" and "quoted" constructions)
// make a small archive expand many times over, and no writer does it.
// Each entry occupies at least its 30-byte local header and its packed
// data from its header offset (the local name and extra fields and a
// data descriptor only add to that); sorted by offset, each must end
// before the next begins, and none may run into the central directory.
// Sorting is skipped when the directory is already in offset order,
// which is what writers produce.
func checkOverlap(files []file, dirStart int64) error {
	if len(files) == 0 {
		return nil
	}
	end := func(f *file) int64 {
		e := f.headerOff + localLen
		if f.csize > uint64(math.MaxInt64-e) {
			return math.MaxInt64
		}
		return e + int64(f.csize)
	}
	sorted := true
	for i := 1; i < len(files); i++ {
		if files[i].headerOff < files[i-1].headerOff {
			sorted = false
			break
		}
	}
	check := func(prev, next *file) error {
		if next.headerOff < end(prev) {
			if next.headerOff == prev.headerOff {
				return errs.Corrupt("entries %d and %d share the local header at offset %d", prev.Index, next.Index, prev.headerOff)
			}
			return errs.Corrupt("entry %d (local header at %d) overlaps the data of entry %d (%d packed bytes at %d)", next.Index, next.headerOff, prev.Index, prev.csize, prev.headerOff)
		}
		return nil
	}
	var last *file
	if sorted {
		for i := 1; i < len(files); i++ {
			if err := check(&files[i-1], &files[i]); err != nil {
				return err
			}
		}
		last = &files[len(files)-1]
	} else {
		order := make([]int32, len(files))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(files[x].headerOff, files[y].headerOff) })
		for i := 1; i < len(order); i++ {
			if err := check(&files[order[i-1]], &files[order[i]]); err != nil {
				return err
			}
		}
		last = &files[order[len(order)-1]]
	}
	if dirStart >= 0 && end(last) > dirStart {
		return errs.Corrupt("entry %d (%d packed bytes at %d) runs into the central directory at %d", last.Index, last.csize, last.headerOff, dirStart)
	}
	return nil
}

// dirBuf is the scratch for reading a central directory, pooled so that
// opening an archive allocates little more than its entry list.
type dirBuf struct {
	br      *bufio.Reader
	scratch []byte
}

var dirBufPool = pool.Of[dirBuf]{New: func() *dirBuf {
	return &dirBuf{br: bufio.NewReaderSize(nil, 16<<10)}
}}

// centralAt reports whether a central directory header starts at off.
func (a *Archive) centralAt(off int64) bool { return centralAt(a.ra, a.size, off) }

// localAt reports whether a local header starts at off.
func (a *Archive) localAt(off int64) bool { return sigAt(a.ra, a.size, off) == sigLocal }

func centralAt(ra io.ReaderAt, size, off int64) bool { return sigAt(ra, size, off) == sigCentral }

// sigAt returns the 4 bytes at off as a signature (0 when out of range).
func sigAt(ra io.ReaderAt, size, off int64) uint32 {
	var b [4]byte
	if off < 0 || off+4 > size {
		return 0
	}
	if _, err := ra.ReadAt(b[:], off); err != nil {
		return 0
	}
	return le.Uint32(b[:])
}

// readLinks reads symlink targets (the entry's data) so that Entries
// carries them. A target that cannot be read stays empty; opening the
// entry reports why.
func (a *Archive) readLinks() {
	var buf []byte
	for i := range a.files {
		f := &a.files[i]
		if f.Link != arc.LinkSymlink || f.usize > meta.MaxLinkTarget {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			continue
		}
		if buf == nil {
			buf = make([]byte, 0, 512)
		}
		buf = buf[:0]
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := rc.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil || len(buf) > meta.MaxLinkTarget {
				if err == io.EOF {
					f.LinkTarget = string(buf)
				}
				break
			}
		}
		rc.Close()
	}
}

// Entries returns the entries in central directory order.
func (a *Archive) Entries() []*arc.Entry { return a.entries }

// Comment returns the archive comment.
func (a *Archive) Comment() string { return a.comment }

// Close releases nothing the caller owns: ra stays open.
func (a *Archive) Close() error { return nil }
