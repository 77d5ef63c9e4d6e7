package zip

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"slices"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
)

// extraASi is the ASi Unix extra field (APPNOTE 4.6.4, "Extra Field
// Mappings" 0x756e): CRC-32 (4), st_mode (2), symlink size (4), uid (2),
// gid (2), symlink target (rest). Info-ZIP's 0x7875 holds only uid/gid.
const extraASi = 0x756e

// localUnixMode applies a Unix mode that a local header's ASi extra field
// carries, so a stream knows symlinks and modes before the central
// directory.
func localUnixMode(f *file, extra []byte) {
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return
		}
		b := extra[4 : 4+n]
		extra = extra[4+n:]
		if id != extraASi || len(b) < 14 {
			continue
		}
		mode := uint32(le.Uint16(b[4:]))
		m := meta.UnixEntryMode(mode)
		if f.Mode.IsDir() && m&fs.ModeType == 0 {
			m |= fs.ModeDir // a name ending in '/' stays a directory
		}
		f.Mode = m
		if m&fs.ModeSymlink != 0 {
			f.Link = arc.LinkSymlink
			if target := b[14:]; len(target) > 0 && len(target) <= meta.MaxLinkTarget {
				f.LinkTarget = string(target)
			}
		}
		return
	}
}

// Directory reads the central directory that ends the stream, once Next
// has returned io.EOF, and returns its entries in directory order: what
// only the directory says (Unix modes, so symlinks; comments; the real
// sizes) for the entries already read. LinkTarget is empty (a target is
// an entry's data, which has gone by). It reads at most
// Limits.MaxEntries headers and MaxHeaderMemory bytes, and returns
// (nil, nil) when there is nothing to read (an empty archive, a second
// call).
func (z *Reader) Directory() ([]*arc.Entry, error) {
	if z.s == nil {
		return nil, errClosed
	}
	if !z.done || z.err != nil {
		return nil, errs.Corrupt("central directory requested before the last entry")
	}
	if z.dirRead || z.endSig != sigCentral {
		return nil, nil
	}
	z.dirRead = true
	s := z.s
	lim := &z.cfg.Bounds
	var ents []*arc.Entry
	var fixed [centralLen]byte
	var h header
	mem := int64(0)
	// What the central directory says must agree with the local headers
	// the stream went by (consist.go): every header names one of them,
	// and every one of them is named. Offsets count from the stream's
	// start, or from elsewhere when data preceded it (an SFX stub, which
	// the root skips; a spanning marker the writer did not count): the
	// first header then fixes the difference. (A directory out of offset
	// order after such data is refused; writers keep the order.)
	seen := make([]bool, len(z.locals))
	base := int64(0)
	next := 0
	sig := z.endSig
	for sig == sigCentral {
		if int64(len(ents)) >= lim.MaxEntries {
			return nil, errs.Limit("central directory: more than MaxEntries (%d) headers", lim.MaxEntries)
		}
		if _, err := io.ReadFull(s.br, fixed[4:]); err != nil {
			return nil, errs.EOF(err, "central directory header")
		}
		nl, el, cl := parseCentral(fixed[:], &h)
		need := nl + el + cl
		mem += int64(need) + 256 // the Entry and its strings
		if mem > lim.MaxHeaderMemory {
			return nil, errs.Limit("central directory larger than MaxHeaderMemory (%d bytes)", lim.MaxHeaderMemory)
		}
		if cap(s.scratch) < need {
			s.scratch = make([]byte, need)
		}
		b := s.scratch[:need]
		if _, err := io.ReadFull(s.br, b); err != nil {
			return nil, errs.EOF(err, "central directory header")
		}
		f := new(file)
		f.fill(&h, b[:nl], b[nl:nl+el], b[nl+el:], z.cfg.DecodeName, z.cfg.Name)
		f.Index = len(ents)
		if f.badZip64 {
			return nil, errs.Corrupt("central directory header %d: Zip64 extra field sizes disagree with the header's", f.Index)
		}
		if len(ents) == 0 && len(z.locals) > 0 {
			if _, ok := slices.BinarySearchFunc(z.locals, f.headerOff, func(l localInfo, off int64) int { return cmp.Compare(l.off, off) }); !ok {
				base = z.locals[0].off - f.headerOff
			}
		}
		if err := z.checkCentral(f, b[:nl], base, seen, &next); err != nil {
			return nil, err
		}
		ents = append(ents, &f.Entry)
		if _, err := io.ReadFull(s.br, fixed[:4]); err != nil {
			return ents, errs.EOF(err, "end of central directory")
		}
		sig = le.Uint32(fixed[:])
	}
	if sig != sigEnd && sig != sigEnd64 {
		// 7zz: "Headers Error" (the end record is damaged or missing).
		z.warns = append(z.warns, errs.Corrupt("central directory followed by %08x, not an end record", sig))
	} else if err := z.endRecord(sig); err != nil {
		// 7zz: "Unexpected end of archive". The entries were whole, but
		// the archive was cut: say so, as the Archive does.
		return ents, err
	}
	if n := len(ents); n < len(z.locals) {
		return nil, errs.Corrupt("%d entries of the stream are not in its central directory", len(z.locals)-n)
	}
	if z.junk > 0 {
		// Every entry was there: the skipped bytes were junk (7zz: Ok).
		z.warns[z.junkWarn] = fmt.Errorf("%d bytes of unknown data before the central directory", z.junk)
	}
	return ents, nil
}

// endRecord reads the end records that follow the central directory
// (sig, already read: the Zip64 end record, its locator and the end
// record, or the end record alone) and fails with ErrTruncated when the
// stream ends inside them or inside the archive comment.
func (z *Reader) endRecord(sig uint32) error {
	br := z.s.br
	if sig == sigEnd64 {
		// Zip64 end record: its size (8 bytes) counts what follows it;
		// then the locator (20 bytes) and the end record proper.
		var n [8]byte
		if _, err := io.ReadFull(br, n[:]); err != nil {
			return errs.EOF(err, "Zip64 end of central directory record")
		}
		rest := le.Uint64(n[:])
		if rest > 1<<20 {
			rest = 1 << 20 // an extensible data sector past 1 MiB is not ours to read
		}
		if m, err := io.CopyN(io.Discard, br, int64(rest)+20+4); err != nil {
			return errs.Truncated(fmt.Sprintf("the stream ends %d bytes into the Zip64 end records", m))
		}
	}
	var end [18]byte // the end record after its signature
	if _, err := io.ReadFull(br, end[:]); err != nil {
		return errs.EOF(err, "end of central directory record")
	}
	if c := int64(le.Uint16(end[16:])); c > 0 {
		if m, err := io.CopyN(io.Discard, br, c); err != nil {
			return errs.Truncated(fmt.Sprintf("the archive comment is cut after %d of %d bytes", m, c))
		}
	}
	return nil
}

// countReader counts what the stream buffer reads from the source, so the
// Reader knows each local header's offset (pos).
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// pos is the stream offset of the next byte Next or Read would consume.
func (z *Reader) pos() int64 { return z.s.cnt.n - int64(z.s.br.Buffered()) }

// noteLocal checks what only the local header f says (a Zip64 extra
// field that repeats the sizes with other values) and remembers the
// header for Directory, which compares it with the central directory.
// Entries beyond MaxEntries are not remembered (Directory refuses a
// directory that long).
func (z *Reader) noteLocal(f *file, h *header, name []byte) error {
	if f.badZip64 {
		return errs.Corrupt("local header: Zip64 extra field sizes disagree with the header's")
	}
	if int64(len(z.locals)) >= z.cfg.Bounds.MaxEntries {
		return nil
	}
	z.locals = append(z.locals, localInfo{
		off:        z.localAt,
		name:       maphash.Bytes(z.s.seed, name),
		method:     h.method,
		crc:        f.crc,
		csize:      f.csize,
		usize:      f.usize,
		descriptor: f.flags&(flagDescriptor|flagMasked) != 0,
	})
	return nil
}

// noteDescriptor records the CRC and sizes of the current entry's data
// descriptor: what the stream verified the data against.
func (z *Reader) noteDescriptor(crc uint32, csize, usize uint64) {
	if n := len(z.locals); n > 0 && z.locals[n-1].off == z.localAt {
		l := &z.locals[n-1]
		l.crc, l.csize, l.usize, l.descriptor = crc, csize, usize, false
	}
}

// skipJunk is called at a bad signature after the last entry: data that
// is not a header before the central directory. 7zz accepts it silently
// (the directory says where entries are); the stream skips to the first
// central directory (or end record) signature. What was skipped may have
// been a damaged entry, which only the directory can tell: until
// Directory has matched every central header with a local header, the
// warning matches ErrCorrupt; then it is a note. Skipped data holding a
// local header signature is not junk: skipJunk reports false, and the
// bad signature is an error. It reports whether it found the directory.
func (z *Reader) skipJunk() bool {
	br := z.s.br
	skipped := int64(4)
	for {
		buf, err := br.Peek(br.Size())
		for i := 0; i+4 <= len(buf); i++ {
			if buf[i] != 'P' {
				continue
			}
			switch sig := le.Uint32(buf[i:]); sig {
			case sigLocal:
				return false
			case sigCentral, sigEnd, sigEnd64:
				br.Discard(i + 4)
				z.done, z.endSig = true, sig
				z.junk = skipped + int64(i)
				z.junkWarn = len(z.warns)
				z.warns = append(z.warns, errs.Corrupt("%d bytes of unknown data after the last entry (the central directory tells whether an entry was lost)", z.junk))
				return true
			}
		}
		if err != nil || len(buf) < 4 {
			return false
		}
		k, _ := br.Discard(len(buf) - 3)
		skipped += int64(k)
	}
}

// Warnings reports data the stream skipped (the root's Reader.Warnings).
func (z *Reader) Warnings() []error { return z.warns }

// checkCentral compares central directory header f (its raw name) with
// the local header the stream had at its offset; seen counts matches.
//
// Offsets on later disks of a split archive count from the start of
// their disk, which a stream of the joined disks does not know: such a
// header is matched with the local header after the last one matched.
func (z *Reader) checkCentral(f *file, name []byte, base int64, seen []bool, next *int) error {
	off := f.headerOff + base
	i, ok := slices.BinarySearchFunc(z.locals, off, func(l localInfo, off int64) int { return cmp.Compare(l.off, off) })
	if f.disk != 0 {
		i, ok = *next, *next < len(z.locals)
	}
	if !ok {
		return errs.Corrupt("central directory header %d: no local header at offset %d in the stream", f.Index, off)
	}
	*next = i + 1
	if seen[i] {
		return errs.Corrupt("central directory header %d: shares the local header at %d with another", f.Index, off)
	}
	seen[i] = true
	l := &z.locals[i]
	if l.name != maphash.Bytes(z.s.seed, name) {
		return errs.Corrupt("central directory header %d: name differs from its local header's", f.Index)
	}
	if err := f.agrees(l); err != nil {
		return fmt.Errorf("central directory header %d: %w", f.Index, err)
	}
	return nil
}
