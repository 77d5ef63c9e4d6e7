package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
)

// The persistable index of a ZIP archive (engine.Indexer; the root's
// Archive.Index and WithIndex): every entry as the central
// directory described it (all Entry fields, and the method, flags,
// encryption parameters, sizes, CRC and local header offset the reader
// needs), the archive comment, the prepended-data delta and the number
// of disks of a spanned set. Reopening reads no directory. It checks the
// archive's (joined) size and the BLAKE3 of the bytes from the central
// directory's start to the end (the directory, Zip64 records, end
// record and comment; a region past 2 MiB by its first and last MiB,
// and then the whole of it before the first entry is acted on:
// CheckEntry, which the root's Extract calls, so that no directory's
// mode or entry's type comes from bytes no digest covered). Local
// headers are read on every Open, as without an index.
//
// WinZip AES keys are not stored (each entry has its own salt; they are
// derived again on first use); archive-level warnings are not kept.
//
// Payload, version 2:
//
//	byte    version (2; 1 lacks the full digest)
//	uvarint archive size (all disks joined)
//	uvarint disks before the last (0: not spanned)
//	varint  base (prepended-data delta)
//	bytes   comment (decoded)
//	ranges  [central directory start, size) and its BLAKE3
//	32      the BLAKE3 of every byte of that range (indexfmt.DigestAll)
//	uvarint entries, then per entry: indexfmt Entry, then the reader's fields
const persistVersion = 2

// minFileSize is the fewest payload bytes one entry takes: the entry and
// fourteen one-byte fields.
const minFileSize = indexfmt.MinEntrySize + 14

// ExportIndex serves engine.Indexer (withKeys is ignored: no key is
// stored for ZIP).
func (c *capable) ExportIndex(withKeys bool) ([]byte, error) {
	a := (*Archive)(c)
	if a.missing != nil {
		return nil, errs.Unsupported("ZIP: a spanned set with a missing disk is not indexed")
	}
	e := &indexfmt.Encoder{B: make([]byte, 0, 64*len(a.files)+256)}
	e.Byte(persistVersion)
	e.Uvarint(uint64(a.size))
	disks := 0
	if a.diskStarts != nil {
		disks = len(a.diskStarts) - 2
	}
	e.Uvarint(uint64(disks))
	e.Varint(a.base)
	e.Bytes([]byte(a.comment))
	ranges := []indexfmt.Range{{Off: a.dirStart, Len: a.size - a.dirStart}}
	sum, err := indexfmt.Digest(a.ra, a.size, ranges)
	if err != nil {
		return nil, err
	}
	indexfmt.PutRanges(e, ranges, sum)
	if indexfmt.Partial(ranges) {
		if sum, err = indexfmt.DigestAll(a.ra, a.size, ranges); err != nil {
			return nil, err
		}
	}
	e.Raw(sum[:])
	e.Uvarint(uint64(len(a.files)))
	for i := range a.files {
		f := &a.files[i]
		e.Entry(&f.Entry)
		e.Uvarint(uint64(f.flags))
		e.Uvarint(uint64(f.method))
		e.Uvarint(uint64(f.aesVer))
		e.Byte(f.aesStrength)
		e.Uvarint(uint64(f.strongAlg))
		e.Uvarint(uint64(f.strongFlags))
		e.Uvarint(uint64(f.dosTime))
		var b byte
		for k, v := range []bool{f.aes, f.zip64, f.dirAttr, f.badZip64, f.unnamed} {
			if v {
				b |= 1 << k
			}
		}
		e.Byte(b)
		e.Uvarint(uint64(f.crc))
		e.Uvarint(f.csize)
		e.Uvarint(f.usize)
		e.Varint(f.headerOff)
		e.Uvarint(uint64(f.disk))
		e.Bytes([]byte(f.rawName))
	}
	return e.B, nil
}

// openIndex is Format.OpenIndex for ZIP.
func openIndex(ra io.ReaderAt, size int64, payload []byte, cfg *arc.Config) (arc.Archive, error) {
	c, err := conf.ForIndex(size, cfg)
	if err != nil {
		return nil, err
	}
	a := &Archive{ra: ra, size: size, cfg: c}
	a.keys.budget = a.cfg.Budget
	d := &indexfmt.Decoder{B: payload}
	v := d.Byte("version")
	if d.Err == nil && v != 1 && v != persistVersion {
		return nil, errs.Unsupported("ZIP index version %d", v)
	}
	joined := d.Uvarint("size")
	disks := d.Uvarint("disks")
	a.base = d.Varint("base")
	a.comment = d.String(1<<16, "comment")
	if d.Err != nil {
		return nil, d.Err
	}
	if disks > 0 {
		if disks > 1<<16 {
			return nil, engine.Stale("damaged index: disks")
		}
		if err := a.joinVolumes(uint32(disks)); err != nil {
			return nil, err
		}
	}
	if joined != uint64(a.size) {
		return nil, engine.Stale("the archive's size changed")
	}
	ranges, err := indexfmt.CheckRanges(d, a.ra, a.size)
	if err != nil {
		return nil, err
	}
	if len(ranges) != 1 {
		return nil, engine.Stale("damaged index: ranges")
	}
	a.dirStart = ranges[0].Off
	var all [32]byte
	if v > 1 {
		copy(all[:], d.Raw(32, "full digest"))
	}
	a.ixCheck = indexfmt.CheckLater(a.ra, a.size, ranges, all, indexfmt.Partial(ranges), "ZIP central directory")
	lim := &a.cfg.Bounds
	n := d.Count(minFileSize, int(min(lim.MaxEntries, 1<<40)), "entries")
	if d.Err != nil {
		return nil, d.Err
	}
	if m := uint64(n) * uint64(entryMem); m > uint64(lim.MaxHeaderMemory) {
		return nil, errs.Limit("%d entries need %d bytes of directory memory, above MaxHeaderMemory (%d)", n, m, lim.MaxHeaderMemory)
	}
	a.files = make([]file, n)
	mem := int64(n) * entryMem
	for i := 0; i < n && d.Err == nil; i++ {
		f := &a.files[i]
		before := len(d.B)
		d.Entry(&f.Entry, i, 1<<16)
		f.flags = uint16(d.Uvarint("flags"))
		f.method = uint16(d.Uvarint("method"))
		f.aesVer = uint16(d.Uvarint("AES version"))
		f.aesStrength = d.Byte("AES strength")
		f.strongAlg = uint16(d.Uvarint("strong algorithm"))
		f.strongFlags = uint16(d.Uvarint("strong flags"))
		f.dosTime = uint16(d.Uvarint("DOS time"))
		b := d.Byte("file flags")
		f.aes, f.zip64, f.dirAttr, f.badZip64, f.unnamed = b&1 != 0, b&2 != 0, b&4 != 0, b&8 != 0, b&16 != 0
		f.crc = uint32(d.Uvarint("CRC"))
		f.csize = d.Uvarint("packed size")
		f.usize = d.Uvarint("size")
		f.headerOff = d.Varint("local header offset")
		f.disk = uint32(d.Uvarint("disk"))
		f.rawName = d.String(1<<16, "raw name")
		if f.csize > 1<<62 || f.usize > 1<<62 {
			d.Fail("sizes")
		}
		// Strings are charged as they were stored (the bytes read).
		if mem += int64(before - len(d.B)); mem > lim.MaxHeaderMemory {
			return nil, errs.Limit("the ZIP index needs more than MaxHeaderMemory (%d bytes)", lim.MaxHeaderMemory)
		}
	}
	if d.Err == nil && len(d.B) != 0 {
		return nil, engine.Stale("damaged index: trailing bytes")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	// The same structural check as a directory read: entries must not
	// overlap each other or the directory (an index is untrusted too).
	if err := checkOverlap(a.files, a.dirStart); err != nil {
		return nil, err
	}
	a.entries = make([]*arc.Entry, n)
	for i := range a.files {
		a.entries[i] = &a.files[i].Entry
	}
	return a, nil
}

// CheckEntry serves engine.EntryChecker: in an Archive opened from an
// index whose central directory is longer than the open's digest covers
// whole, the first call digests all of it (once).
func (c *capable) CheckEntry(int) error { return c.ixCheck.Check() }
