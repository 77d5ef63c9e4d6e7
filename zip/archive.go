package zip

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/internal/pool"
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
}

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
	cfg, err := arc.NewConfig(opts...)
	if err != nil {
		return nil, err
	}
	a := &Archive{ra: ra, size: size, cfg: cfg}
	d, err := findDirectory(ra, size)
	if err != nil {
		return nil, err
	}
	a.comment = legacyText([]byte(d.comment), a.cfg.DecodeName)
	if d.disk != 0 || d.cdDisk != 0 {
		if err := a.joinVolumes(d.disk); err != nil {
			return nil, err
		}
		if d, err = findDirectory(a.ra, a.size); err != nil {
			return nil, err
		}
	}
	if err := a.readDirectory(d); err != nil {
		return nil, err
	}
	a.readLinks()
	return a, nil
}

// findDirectory locates the end of central directory record, scanning the
// last 64 KiB + 22 bytes backwards (the comment is at most 65,535 bytes),
// and the Zip64 records when a locator precedes it (APPNOTE 4.3.14-16).
func findDirectory(ra io.ReaderAt, size int64) (*directory, error) {
	if size < endLen {
		return nil, fmt.Errorf("%w: %d bytes is too short for a ZIP archive", errs.ErrFormat, size)
	}
	n := int64(endLen + 65535 + end64LocLen)
	if n > size {
		n = size
	}
	bp := pool.Get(int(n))
	defer pool.Put(bp)
	buf := *bp
	start := size - n
	if _, err := ra.ReadAt(buf, start); err != nil && err != io.EOF {
		return nil, err
	}
	pos := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if buf[i] != 'P' || le.Uint32(buf[i:]) != sigEnd {
			continue
		}
		// The comment must fit in what follows; a record inside a
		// comment would not (unless crafted, and then either is fine).
		if i+endLen+int(le.Uint16(buf[i+20:])) <= len(buf) {
			pos = i
			break
		}
	}
	if pos < 0 {
		// Local headers from the start but no end record: the archive was
		// cut (a download stopped, a disk filled), not something else.
		// (A damaged end record looks the same from here; a cut is by
		// far the more common cause, so it is the class reported.)
		var lh [4]byte
		if _, err := ra.ReadAt(lh[:], 0); err == nil && le.Uint32(lh[:]) == sigLocal {
			return nil, errs.Truncated("ZIP: local headers but no end of central directory record (cut, or the record is damaged)")
		}
		return nil, fmt.Errorf("%w: no end of central directory record", errs.ErrFormat)
	}
	e := buf[pos:]
	d := &directory{
		disk:    uint32(le.Uint16(e[4:])),
		cdDisk:  uint32(le.Uint16(e[6:])),
		count:   uint64(le.Uint16(e[10:])),
		size:    uint64(le.Uint32(e[12:])),
		offset:  uint64(le.Uint32(e[16:])),
		end:     start + int64(pos),
		comment: string(e[endLen : endLen+int(le.Uint16(e[20:]))]),
	}
	// Zip64 locator right before the record.
	if pos >= end64LocLen && le.Uint32(buf[pos-end64LocLen:]) == sigEnd64Loc {
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
		if found {
			d.zip64 = true
			d.needed = le.Uint16(rec[14:])
			d.disk = le.Uint32(rec[16:])
			d.cdDisk = le.Uint32(rec[20:])
			d.count = le.Uint64(rec[32:])
			d.size = le.Uint64(rec[40:])
			d.offset = le.Uint64(rec[48:])
			d.end = recOff
		}
	}
	return d, nil
}

// readDirectory parses every central directory header into a.files.
func (a *Archive) readDirectory(d *directory) error {
	if d.size > uint64(d.end) {
		return errs.Corrupt("central directory of %d bytes does not fit before offset %d", d.size, d.end)
	}
	// Where the directory really starts tells how much data precedes the
	// archive (7-Zip's and archive/zip's rule); a writer that adjusted its
	// offsets (zip -A) makes the delta 0. Padding between directory and
	// end record breaks that guess, so fall back to the stored offset.
	start := d.end - int64(d.size)
	base := start - int64(d.offset)
	if a.diskStarts != nil {
		// Offsets are per disk; the directory's start is known from its end.
		base = 0
		if d.cdDisk >= uint32(len(a.diskStarts)) || a.diskStarts[d.cdDisk]+int64(d.offset) != start {
			return errs.Corrupt("spanned ZIP: central directory not where disk %d offset %d says", d.cdDisk, d.offset)
		}
	} else if !a.centralAt(start) {
		switch {
		case d.count == 0 && d.size == 0:
			base = 0
		case d.offset < uint64(a.size) && a.centralAt(int64(d.offset)):
			base, start = 0, int64(d.offset)
		case d.needed >= 62:
			// APPNOTE 7.3: version 6.2 encrypts the central directory.
			return errs.Unsupported("encrypted central directory (PKWARE strong encryption)")
		default:
			return errs.Corrupt("no central directory at offset %d", d.offset)
		}
	}
	a.base = base
	lim := &a.cfg.Limits
	// The declared count is checked before anything is allocated per
	// entry: against what the directory's bytes can hold (46 bytes per
	// header at least), then against the limits.
	if d.count > d.size/centralLen {
		return errs.Corrupt("%d entries declared in a central directory of %d bytes", d.count, d.size)
	}
	if d.count > uint64(lim.MaxEntries) {
		return errs.Limit("%d entries declared, above MaxEntries (%d)", d.count, lim.MaxEntries)
	}
	if m := d.count * uint64(entryMem); m > uint64(lim.MaxHeaderMemory) {
		return errs.Limit("%d entries need %d bytes of directory memory, above MaxHeaderMemory (%d)", d.count, m, lim.MaxHeaderMemory)
	}
	capN := d.count
	if capN > 1<<16 {
		capN = 1 << 16 // larger directories grow by append, as they really hold entries
	}
	a.files = make([]file, 0, capN)
	// Memory of the index as it is built: the entries, their names,
	// comments and the pointer list.
	mem := int64(0)

	sec := io.NewSectionReader(a.ra, start, a.size-start)
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
	// The directory ends when both its declared size and count are
	// reached, or at the first non-header once the count is (the 16-bit
	// count wraps beyond 65,535 entries in archives without Zip64).
	complete := func() bool {
		n := uint64(len(a.files))
		return n >= d.count || (!d.zip64 && n&0xffff == d.count)
	}
	for read < int64(d.size) || uint64(len(a.files)) < d.count {
		if _, err := io.ReadFull(br, fixed[:4]); err != nil {
			if complete() {
				break
			}
			return errs.EOF(err, "central directory")
		}
		if le.Uint32(fixed[:]) != sigCentral {
			if complete() {
				break
			}
			return errs.Corrupt("central directory header %d has a bad signature", len(a.files))
		}
		if _, err := io.ReadFull(br, fixed[4:]); err != nil {
			return errs.EOF(err, "central directory header")
		}
		nl, el, cl := parseCentral(fixed[:], &h)
		need := nl + el + cl
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
		f.fill(&h, b[:nl], b[nl:nl+el], b[nl+el:], a.cfg.DecodeName)
		f.headerOff += base
		if a.diskStarts != nil {
			if f.disk >= uint32(len(a.diskStarts))-1 {
				return errs.Corrupt("central directory header %d: on disk %d of %d", f.Index, f.disk+1, len(a.diskStarts)-1)
			}
			f.headerOff += a.diskStarts[f.disk]
		}
	}
	if err := checkOverlap(a.files, start); err != nil {
		return err
	}
	a.entries = make([]*arc.Entry, len(a.files))
	for i := range a.files {
		a.entries[i] = &a.files[i].Entry
	}
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
func (a *Archive) centralAt(off int64) bool {
	var b [4]byte
	if off < 0 || off+4 > a.size {
		return false
	}
	if _, err := a.ra.ReadAt(b[:], off); err != nil {
		return false
	}
	return le.Uint32(b[:]) == sigCentral
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
