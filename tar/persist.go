package tar

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
	"github.com/go-unarc/unarc/internal/pool"
)

// The persistable index of a tarball (engine.Indexer; the root's
// Archive.Index and WithIndex): the compressor, every entry's
// header as the header reader read it (the Entry is made from it again, as
// Open makes it) and its data offset in the decoded tar stream. Reopening
// decodes nothing and reads no header: listing a multi-GB .tar.gz from
// its index costs what parsing the index costs.
//
// An index is never trusted:
//
//   - The root checks the archive's size and its first and last 64 KiB,
//     which hold the compressor's header (its kind is detected again and
//     must be the index's) and, for a plain tar, the last headers.
//   - A plain tar's header blocks are digested (indexfmt ranges; with
//     more than indexfmt.MaxRanges header runs, the runs with the
//     smallest gaps between them are merged, and a merged range longer
//     than 2 MiB is digested by its ends only).
//   - Before an entry is first opened (Open, OpenAt; an empty one too),
//     its header blocks are read again, or decoded again from where the
//     entry before it ends (from the nearest checkpoint at or before
//     there), and parsed: they must be a header equal to the index's,
//     ending exactly at the entry's data offset, or the open fails with
//     arc.ErrStaleIndex. A compressed entry Open reads from the start
//     (without checkpoints) is checked the same way as the pass decodes
//     its header. So an index that puts an entry at an offset that is no
//     header, or at another entry's, fails the read instead of returning
//     other bytes.
//
// A compressed tarball's headers cannot be digested without decoding the
// stream: they are compared when they are decoded for a read (the index
// holds every field of each header, which is what is compared; bytes
// that a tar.Header does not hold, such as a header's padding, are
// not). Until an entry is opened its listing is the index's: a stale
// index's metadata of an entry never opened goes unnoticed, but the
// root's Extract checks every entry before it acts on it (CheckEntry:
// the header of a link or directory, which Extract does not open, is
// decoded again as Open's would be).
//
// Payload, version 1:
//
//	byte    version (1)
//	byte    kind (the compressor: 0 none … 6 .lzma)
//	byte    flags: 1 = a single compressed file (bare)
//	uvarint archive size
//	bare:   bytes name, time modified (putTime) of the single entry
//	else:   uvarint entries, then per entry: header (putHeader), uvarint
//	        data offset + 1 (0: unknown); for a plain tar then ranges (the
//	        header regions) and their BLAKE3
const persistVersion = 1

// minHeaderSize is the fewest bytes putHeader writes.
const minHeaderSize = 16

// maxHeaderString bounds a name, link or PAX value (the header reader reads
// none longer than its 1 MiB special-file limit).
const maxHeaderString = 1 << 20

// ixState is what an Archive opened from an index still has to check.
type ixState struct {
	verified []atomic.Bool // entry i's header was decoded and matched
}

// ExportIndex serves engine.Indexer (no key: tar has none). An archive
// cut short (Warnings) has no index.
func (c *capable) ExportIndex(bool) ([]byte, error) {
	a := (*Archive)(c)
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	if len(a.warns) > 0 {
		return nil, errs.Unsupported("tar: an archive cut short has no index")
	}
	e := &indexfmt.Encoder{B: make([]byte, 0, 96*len(a.ents)+64)}
	e.Byte(persistVersion)
	e.Byte(byte(a.kind))
	if a.bare {
		e.Byte(1)
		e.Uvarint(uint64(a.size))
		e.Bytes([]byte(a.ents[0].Name))
		putTime(e, a.ents[0].Modified)
		return e.B, nil
	}
	e.Byte(0)
	e.Uvarint(uint64(a.size))
	e.Uvarint(uint64(len(a.ents)))
	for i, ent := range a.ents {
		putHeader(e, ent.Sys.(*tar.Header))
		e.Uvarint(uint64(a.offs[i] + 1))
	}
	if a.kind == kindNone {
		ranges := a.headerRanges()
		sum, err := indexfmt.Digest(a.ra, a.size, ranges)
		if err != nil {
			return nil, err
		}
		indexfmt.PutRanges(e, ranges, sum)
	}
	return e.B, nil
}

// openIndex is Format.OpenIndex for tar: it rebuilds the Archive from a
// payload ExportIndex made (see above for what it checks).
func openIndex(ra io.ReaderAt, size int64, payload []byte, cfg *arc.Config) (arc.Archive, error) {
	c, err := conf.ForIndex(size, cfg)
	if err != nil {
		return nil, err
	}
	a := &Archive{ra: ra, size: size, lim: c.Bounds, workers: c.Workers}
	hp := readHead(ra, size)
	a.kind = detectKind(*hp)
	a.check = streamCheck(a.kind, *hp)
	plain := a.kind == kindNone && isHeader(*hp)
	pool.Put(hp)
	d := &indexfmt.Decoder{B: payload}
	if v := d.Byte("version"); d.Err == nil && v != persistVersion {
		return nil, errs.Unsupported("tar index version %d", v)
	}
	kind, flags := d.Byte("kind"), d.Byte("flags")
	sz := d.Uvarint("size")
	if d.Err != nil {
		return nil, d.Err
	}
	switch {
	case sz != uint64(size):
		return nil, engine.Stale("the archive's size changed")
	case compKind(kind) != a.kind || (a.kind == kindNone && !plain):
		return nil, engine.Stale("the archive's compressor changed")
	case flags&^1 != 0 || (flags == 1 && a.kind == kindNone):
		return nil, engine.Stale("damaged index: flags")
	}
	if a.bare = flags == 1; a.bare {
		e := bareEntry(a.kind, &decomp{}, "", size)
		e.Name = d.String(1<<16, "name")
		e.Modified = getTime(d)
		if d.Err == nil && len(d.B) != 0 {
			d.Fail("trailing bytes")
		}
		if d.Err != nil {
			return nil, d.Err
		}
		a.ents = []*arc.Entry{e}
		a.ix = &ixState{verified: make([]atomic.Bool, 1)}
		return a, nil
	}
	n := d.Count(minHeaderSize+1, int(min(a.lim.MaxEntries, 1<<40)), "entries")
	if d.Err != nil {
		return nil, d.Err
	}
	// One allocation for the headers, one for the entries and one for
	// their strings (a copy of the payload they are cut from): reopening
	// a listing of thousands allocates a handful of times.
	a.ents, a.offs = make([]*arc.Entry, 0, n), make([]int64, 0, n)
	hs, es := make([]tar.Header, n), make([]arc.Entry, n)
	hd := headerDecoder{d: d, s: string(d.B)}
	method := methodName(a.kind)
	var mem int64
	for i := 0; i < n && d.Err == nil; i++ {
		h := &hs[i]
		hd.header(h)
		off := int64(d.Uvarint("data offset")) - 1
		if d.Err != nil {
			break
		}
		if mem += headerCost(h); mem > a.lim.MaxHeaderMemory {
			return nil, errs.Limit("the tar index needs more than MaxHeaderMemory (%d bytes)", a.lim.MaxHeaderMemory)
		}
		e := &es[i]
		fillEntry(e, h, method, -1, i)
		if a.kind == kindNone && !isSparse(h) {
			e.PackedSize = e.Size
		}
		a.ents = append(a.ents, e)
		a.offs = append(a.offs, off)
		if err := a.fitOffset(i); err != nil {
			return nil, err
		}
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if a.kind == kindNone {
		got, err := indexfmt.CheckRanges(d, ra, size)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(got, a.headerRanges()) {
			return nil, engine.Stale("damaged index: header ranges")
		}
	}
	if len(d.B) != 0 {
		return nil, engine.Stale("damaged index: trailing bytes")
	}
	a.ix = &ixState{verified: make([]atomic.Bool, len(a.ents))}
	return a, nil
}

// fitOffset checks entry i's data offset, read from an index, against
// the entries before it and the archive: header blocks are whole blocks,
// at least one lies between where the entry before ends and the data,
// and a plain tar's data lies inside the archive. (A compressed stream's
// length is not known without decoding it: a read past its end fails.)
func (a *Archive) fitOffset(i int) error {
	off, h := a.offs[i], a.ents[i].Sys.(*tar.Header)
	bad := func() error { return engine.Stale(fmt.Sprintf("damaged index: entry %d's offset", i)) }
	if off < 0 {
		// Unknown: a sparse entry of a compressed tarball only.
		if a.kind == kindNone || !isSparse(h) {
			return bad()
		}
		return nil
	}
	if off%blockSize != 0 || off > 1<<62 || (a.kind != kindNone && isSparse(h)) {
		return bad()
	}
	// The entries before: this entry's headers start after the data of
	// the last one whose offset is known (a sparse one: after its header).
	for j := i - 1; j >= 0; j-- {
		if a.offs[j] >= 0 {
			lo := a.offs[j] + blockSize
			if !isSparse(a.ents[j].Sys.(*tar.Header)) {
				lo = round512(a.offs[j] + max(a.ents[j].Size, 0))
			}
			if !isSparse(h) {
				lo += blockSize // at least one header block before the data
			}
			if off < lo {
				return bad()
			}
			break
		}
	}
	if a.kind == kindNone {
		// A sparse entry's offset is its header's.
		end := off + blockSize
		if !isSparse(h) {
			end = off + max(a.ents[i].Size, 0)
		}
		if end > a.size || off < blockSize && !isSparse(h) {
			return bad()
		}
	} else if off < blockSize {
		return bad()
	}
	return nil
}

// hdrStart is where entry i's header blocks start in the tar stream:
// where the data of the entry before it ends (so PAX, GNU long-name and
// PAX global headers before it are included), or -1 when that is not
// known (after a sparse entry, whose stored data is not its size long).
func (a *Archive) hdrStart(i int) int64 {
	if i == 0 {
		return 0
	}
	if p := i - 1; a.offs[p] >= 0 && !isSparse(a.ents[p].Sys.(*tar.Header)) {
		return round512(a.offs[p] + max(a.ents[p].Size, 0))
	}
	return -1
}

// headerRanges are a plain tar's header regions: each entry's header
// blocks (a sparse entry's first one), adjacent ones merged, at most
// indexfmt.MaxRanges (the runs split by the largest gaps kept).
func (a *Archive) headerRanges() []indexfmt.Range {
	var rs []indexfmt.Range
	for i, e := range a.ents {
		start, end := a.hdrStart(i), a.offs[i]
		if isSparse(e.Sys.(*tar.Header)) {
			if end < 0 {
				continue
			}
			if start < 0 {
				start = end
			}
			end += blockSize
		}
		if start < 0 || end <= start {
			continue
		}
		if k := len(rs) - 1; k >= 0 && rs[k].Off+rs[k].Len >= start {
			rs[k].Len = max(rs[k].Len, end-rs[k].Off)
			continue
		}
		rs = append(rs, indexfmt.Range{Off: start, Len: end - start})
	}
	if len(rs) <= indexfmt.MaxRanges {
		return rs
	}
	// Keep the MaxRanges-1 largest gaps as splits, merge across the rest.
	gaps := make([]int, len(rs)-1)
	for k := range gaps {
		gaps[k] = k
	}
	gap := func(k int) int64 { return rs[k+1].Off - (rs[k].Off + rs[k].Len) }
	slices.SortStableFunc(gaps, func(x, y int) int {
		gx, gy := gap(x), gap(y)
		switch {
		case gx > gy:
			return -1
		case gx < gy:
			return 1
		}
		return x - y
	})
	split := make([]bool, len(rs))
	for _, k := range gaps[:indexfmt.MaxRanges-1] {
		split[k] = true
	}
	out := rs[:1]
	for k := 1; k < len(rs); k++ {
		if split[k-1] {
			out = append(out, rs[k])
			continue
		}
		last := &out[len(out)-1]
		last.Len = rs[k].Off + rs[k].Len - last.Off
	}
	return out
}

// checkIndexed makes sure, before entry i of an Archive opened from an
// index is first opened (by OpenAt when byOffset), that its header is
// where the index says, as the index says (see above): a plain tar's is
// read again; a compressed one's is decoded by the pass Open reads the
// entry with (seek checks it), or else from the nearest checkpoint
// before it, or by the kept pass when it has not passed the entry (an
// empty entry read in order), or from the start.
func (a *Archive) checkIndexed(i int, byOffset bool) error {
	x := a.ix
	if x == nil || x.verified[i].Load() {
		return nil
	}
	if a.kind != kindNone && !a.bare && a.ents[i].Size > 0 {
		if _, _, ok := a.cpRange(i); !byOffset || !ok {
			return nil // Open decodes through the header: seek checks it
		}
	}
	return a.checkHeader(i, byOffset)
}

// CheckEntry serves engine.EntryChecker: before Extract acts on entry i
// of an Archive opened from an index without opening it (a directory, a
// symlink, a hard link, a device), its header is checked as Open checks
// one (read again, or decoded again from the kept pass or the nearest
// checkpoint), whatever its size. A regular file with data is left to
// Open, which checks it in the pass that reads it.
func (c *capable) CheckEntry(i int) error {
	a := (*Archive)(c)
	if a.ix == nil {
		return nil
	}
	if i < 0 || i >= len(a.ents) {
		return fmt.Errorf("tar: no entry %d", i)
	}
	if e := a.ents[i]; a.ix.verified[i].Load() || e.Size > 0 && e.Link == arc.LinkNone && e.Mode.IsRegular() {
		return nil
	}
	return a.checkHeader(i, false)
}

// checkHeader checks entry i's header now (see checkIndexed).
func (a *Archive) checkHeader(i int, byOffset bool) error {
	if a.bare {
		return a.verify(i, a.checkBare())
	}
	if a.kind == kindNone {
		return a.verify(i, a.walkPlain(i))
	}
	if a.hdrStart(i) >= 0 && cpKindOf(a.kind) != "" && a.cps.Interval() > 0 && (byOffset || !a.idleReaches(i)) {
		return a.verify(i, a.checkStream(i))
	}
	c, err := a.seek(i)
	if err == nil {
		(&entryReader{c: c, a: a}).Close() // keep the pass for the next entry
	}
	return a.verify(i, err)
}

// checkBare decodes the first block of a single compressed file listed
// from an index: a tar header there means the index calls a tarball a
// single file (its entries would be read as one).
func (a *Archive) checkBare() error {
	c, n, err := a.newCursor()
	if err != nil {
		return err
	}
	defer c.free()
	if isHeader(c.hb[:n]) {
		return engine.Stale("a tarball indexed as a single compressed file")
	}
	return nil
}

// verify notes entry i checked when err is nil, and returns err.
func (a *Archive) verify(i int, err error) error {
	if err == nil {
		a.ix.verified[i].Store(true)
	}
	return err
}

// idleReaches reports whether the pass Open keeps has not passed entry i.
func (a *Archive) idleReaches(i int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.idle != nil && a.idle.next <= i
}

// walkPlain parses a plain tar's headers from where openPlain reads
// entry i's (a sparse entry's offset; the start when that is unknown),
// or from where the entry before it ends (when that is unknown, from the
// nearest entry before it whose end is known) up to entry i's, and
// compares it and its data offset with the index.
func (a *Archive) walkPlain(i int) error {
	k, start := i, a.hdrStart(i)
	switch {
	case isSparse(a.ents[i].Sys.(*tar.Header)):
		start = max(a.offs[i], 0)
		if a.offs[i] < 0 {
			k = 0
		}
	default:
		for start < 0 {
			k--
			start = a.hdrStart(k)
		}
	}
	sr := &seekReader{ra: a.ra, size: a.size, pos: start}
	tr := new(headerReader)
	tr.reset(sr)
	defer tr.release()
	for n := k; ; {
		h, err := tr.Next()
		if err != nil {
			return staleHeader(i, err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if n == i {
			return a.matchHeader(i, h, sr.pos)
		}
		n++
	}
}

// checkStream decodes a compressed tarball's stream over entry i's header
// blocks, from the nearest checkpoint at or before them, and compares
// what they say with the index. The pass is kept, at the entry's data.
func (a *Archive) checkStream(i int) error {
	start, data := a.hdrStart(i), a.offs[i]
	p, err := a.pass(start)
	if err != nil {
		return err
	}
	r := &cpReader{a: a, p: p, i: i, data: start, end: data, every: a.cps.Interval()}
	r.next = (p.pos/r.every + 1) * r.every
	p.d.PauseAt(r.next)
	defer r.Close()
	tr := new(headerReader)
	tr.reset(r)
	defer tr.release()
	for {
		h, err := tr.Next()
		if err != nil {
			return staleHeader(i, err)
		}
		if h.Typeflag != tar.TypeXGlobalHeader {
			return a.matchHeader(i, h, p.pos)
		}
	}
}

// checkSeek is seek's check of entry i's header h, decoded with its data
// at stream offset data, in an Archive opened from an index.
func (a *Archive) checkSeek(i int, h *tar.Header, data int64) error {
	if a.ix == nil {
		return nil
	}
	return a.verify(i, a.matchHeader(i, h, data))
}

// matchHeader compares header h, found with its data at offset data,
// with entry i's in the index.
func (a *Archive) matchHeader(i int, h *tar.Header, data int64) error {
	want := a.ents[i].Sys.(*tar.Header)
	if !sameHeader(h, want) {
		return engine.Stale(fmt.Sprintf("entry %d's header changed", i))
	}
	if a.offs[i] >= 0 && !isSparse(want) && data != a.offs[i] {
		return engine.Stale(fmt.Sprintf("entry %d's data is not where the index says", i))
	}
	return nil
}

// staleHeader is the error of finding no header where the index put
// entry i's: the archive's own failures (closed, a limit, a read error)
// pass; what the header reader cannot parse there means a stale index.
func staleHeader(i int, err error) error {
	if errors.Is(err, fs.ErrClosed) || errors.Is(err, errs.ErrLimit) || errors.Is(err, errClosed) {
		return err
	}
	if err != io.EOF && err != io.ErrUnexpectedEOF && !errors.Is(err, tar.ErrHeader) && !isOurs(err) &&
		!strings.HasPrefix(err.Error(), "archive/tar:") {
		return err // the reader's own error
	}
	return engine.Stale(fmt.Sprintf("no header of entry %d where the index says (%v)", i, err))
}

// sameHeader reports whether two headers say the same (Xattrs are the
// PAX records' SCHILY.xattr ones).
func sameHeader(x, y *tar.Header) bool {
	return x.Typeflag == y.Typeflag && x.Name == y.Name && x.Linkname == y.Linkname && x.Size == y.Size &&
		x.Mode == y.Mode && x.Uid == y.Uid && x.Gid == y.Gid && x.Uname == y.Uname && x.Gname == y.Gname &&
		x.ModTime.Equal(y.ModTime) && x.AccessTime.Equal(y.AccessTime) && x.ChangeTime.Equal(y.ChangeTime) &&
		x.Devmajor == y.Devmajor && x.Devminor == y.Devminor && x.Format == y.Format &&
		maps.Equal(x.PAXRecords, y.PAXRecords)
}

// putHeader writes every field of h but Xattrs (the PAX records hold
// them); maps in key order.
func putHeader(e *indexfmt.Encoder, h *tar.Header) {
	e.Byte(h.Typeflag)
	e.Bytes([]byte(h.Name))
	e.Bytes([]byte(h.Linkname))
	e.Varint(h.Size)
	e.Varint(h.Mode)
	e.Varint(int64(h.Uid))
	e.Varint(int64(h.Gid))
	e.Bytes([]byte(h.Uname))
	e.Bytes([]byte(h.Gname))
	for _, t := range []time.Time{h.ModTime, h.AccessTime, h.ChangeTime} {
		putTime(e, t)
	}
	e.Varint(h.Devmajor)
	e.Varint(h.Devminor)
	e.Uvarint(uint64(h.Format))
	keys := slices.Sorted(maps.Keys(h.PAXRecords))
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.Bytes([]byte(k))
		e.Bytes([]byte(h.PAXRecords[k]))
	}
}

// putTime writes a header time: 0 zero; 1 local, 2 UTC (archive/tar
// gives local times), then seconds and nanoseconds. Not indexfmt's Time:
// that keeps another zone as a FixedZone by name and offset, and a
// reopened tar.Header must hold time.Local, as the header reader gives
// it, whatever the machine's zone is when the index is read.
func putTime(e *indexfmt.Encoder, t time.Time) {
	switch {
	case t.IsZero():
		e.Byte(0)
		return
	case t.Location() == time.UTC:
		e.Byte(2)
	default:
		e.Byte(1)
	}
	e.Varint(t.Unix())
	e.Uvarint(uint64(t.Nanosecond()))
}

func getTime(d *indexfmt.Decoder) time.Time {
	loc := d.Byte("header time")
	if loc == 0 {
		return time.Time{}
	}
	sec, ns := d.Varint("header time"), d.Uvarint("header time")
	if loc > 2 || ns >= 1e9 || sec < -1<<50 || sec > 1<<50 {
		d.Fail("header time")
		return time.Time{}
	}
	t := time.Unix(sec, int64(ns))
	if loc == 2 {
		t = t.UTC()
	}
	return t
}

// headerDecoder reads what putHeader wrote; its strings are cut from s,
// one string copy of the bytes d reads (from d.B when it started).
type headerDecoder struct {
	d *indexfmt.Decoder
	s string
}

// str reads a length-prefixed string of at most maxHeaderString bytes.
func (hd *headerDecoder) str(what string) string {
	b := hd.d.Bytes(what)
	if hd.d.Err != nil || len(b) > maxHeaderString {
		hd.d.Fail(what)
		return ""
	}
	end := len(hd.s) - len(hd.d.B)
	return hd.s[end-len(b) : end]
}

// header reads a header into h. Xattrs are rebuilt from the PAX records
// as archive/tar fills them.
func (hd *headerDecoder) header(h *tar.Header) {
	d := hd.d
	h.Typeflag = d.Byte("typeflag")
	h.Name = hd.str("name")
	h.Linkname = hd.str("link name")
	h.Size = d.Varint("size")
	h.Mode = d.Varint("mode")
	uid, gid := d.Varint("uid"), d.Varint("gid")
	h.Uname = hd.str("user name")
	h.Gname = hd.str("group name")
	h.ModTime, h.AccessTime, h.ChangeTime = getTime(d), getTime(d), getTime(d)
	h.Devmajor, h.Devminor = d.Varint("device"), d.Varint("device")
	format := d.Uvarint("format")
	n := d.Count(2, maxHeaderString, "PAX records")
	var xattrs map[string]string
	if n > 0 {
		h.PAXRecords = make(map[string]string, n)
	}
	for j := 0; j < n && d.Err == nil; j++ {
		k := hd.str("PAX key")
		v := hd.str("PAX value")
		if _, dup := h.PAXRecords[k]; dup {
			d.Fail("PAX records")
		}
		h.PAXRecords[k] = v
		if x, ok := strings.CutPrefix(k, "SCHILY.xattr."); ok {
			if xattrs == nil {
				xattrs = make(map[string]string)
			}
			xattrs[x] = v
		}
	}
	//lint:ignore SA1019 archive/tar still fills it: the reopened Sys is the same
	h.Xattrs = xattrs
	if h.Size < 0 || uid < -1<<31 || uid > 1<<31-1 || gid < -1<<31 || gid > 1<<31-1 || format >= 1<<5 {
		d.Fail("tar header")
	}
	h.Uid, h.Gid, h.Format = int(uid), int(gid), tar.Format(format)
}

// ExportCheckpoints serves engine.CheckpointPersister: each checkpoint
// of the stream with the Check of the up to CheckSpan bytes that follow
// it (fewer at the stream's end).
func (c *capable) ExportCheckpoints() ([]engine.Checkpoint, error) {
	a := (*Archive)(c)
	cps := a.cps.Snapshot()
	out := cps[:0]
	bufp := pool.Get(engine.CheckSpan)
	defer pool.Put(bufp)
	buf := (*bufp)[:engine.CheckSpan]
	for _, cp := range cps {
		if cp.Stream != 0 || cp.Kind != cpKindOf(a.kind) {
			continue
		}
		var in countReader
		s, err := a.openStream(&cp, &in)
		if err != nil {
			return nil, err
		}
		n, err := io.ReadFull(s, buf)
		s.Close()
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, err
		}
		if n == 0 {
			continue // at the end: nothing to resume
		}
		cp.CheckLen = int64(n)
		if cp.Check, err = cpcache.SumFrom(cp, bytes.NewReader(buf[:n]), "tar stream"); err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	if err := a.cps.SealInputs(out); err != nil {
		return nil, err
	}
	return out, nil
}

// RestoreCheckpoints serves engine.CheckpointPersister. The fields of
// each must fit the stream (kind, offsets inside the archive and the
// limits, a state no larger than the decoder's); the decoder checks the
// state when it resumes, and findCP its Check before its first use.
func (c *capable) RestoreCheckpoints(cps []engine.Checkpoint) error {
	a := (*Archive)(c)
	kind := cpKindOf(a.kind)
	return a.cps.RestoreAll(cps, func(cp *engine.Checkpoint) error {
		if kind == "" || cp.Kind != kind || cp.Stream != 0 || cp.Out <= 0 || cp.Out > 1<<62 ||
			cp.In <= 0 || cpInByte(cp) >= a.size || cp.CheckLen <= 0 || cp.CheckLen > engine.CheckSpan ||
			int64(len(cp.State)) > a.cpStateMax() {
			return engine.Stale("checkpoint does not fit the stream")
		}
		cp.Entry, cp.EntryOff = -1, 0
		return nil
	})
}

// cpStateMax bounds a checkpoint state of the stream, as its
// compressor's row says (a deflate window and its header, bzip2's six
// bytes, zstd's version byte, an LZMA window and its fields).
func (a *Archive) cpStateMax() int64 {
	if c := compressorOf(a.kind); c != nil && c.cpStateMax != nil {
		return c.cpStateMax(&a.lim)
	}
	return lzmaStateMax(&a.lim)
}

// findCP is the latest checkpoint at or before stream offset out; one
// restored from an index is used only once decoding from it gave its
// Check (else it is dropped and an earlier one tried).
func (a *Archive) findCP(out int64) (engine.Checkpoint, bool) {
	cp, ok, _ := a.cps.FindChecked(0, out, func(cp engine.Checkpoint) (bool, error) {
		return cpcache.Verify(cp, a.cpSum)
	})
	return cp, ok
}

// cpSum is cp's Check as decoding cp.CheckLen bytes from it gives it.
func (a *Archive) cpSum(cp engine.Checkpoint) (uint32, error) {
	var in countReader
	s, err := a.openStream(&cp, &in)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	return cpcache.SumFrom(cp, s, "tar stream")
}

// cpInput is what checkpoint cp's state was decoded from: the archive
// from its start through the byte the decoder resumes at (partly read
// when the offset is in bits).
func (a *Archive) cpInput(cp engine.Checkpoint) (cpcache.Input, error) {
	return cpcache.Input{Spans: []cpcache.Span{{R: a.ra, Len: a.size}}, N: min(cpInByte(&cp)+1, a.size)}, nil
}
