package zip

import (
	"io"
	"io/fs"

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
	lim := &z.cfg.Limits
	var ents []*arc.Entry
	var fixed [centralLen]byte
	var h header
	mem := int64(0)
	for sig := z.endSig; sig == sigCentral; {
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
		f.fill(&h, b[:nl], b[nl:nl+el], b[nl+el:], z.cfg.DecodeName)
		f.Index = len(ents)
		ents = append(ents, &f.Entry)
		if _, err := io.ReadFull(s.br, fixed[:4]); err != nil {
			return ents, errs.EOF(err, "end of central directory")
		}
		sig = le.Uint32(fixed[:])
	}
	return ents, nil
}
