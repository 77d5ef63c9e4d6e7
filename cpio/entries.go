package cpio

import (
	"archive/tar"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
)

// entryCost is what the index keeps per entry besides its strings.
const entryCost = 400

// item is an entry and where its data is.
type item struct {
	e      *arc.Entry
	off    int64  // data offset in the input
	size   int64  // data bytes (0 for a hard link to an earlier entry)
	sum    uint32 // crc format: the stored byte sum
	crc    bool
	target string // a symlink's target (its data), read when listed
}

// linkKey identifies a file across its hard links in one archive.
type linkKey struct {
	dev, ino uint64
}

// group is one hard-linked file: the name that holds its data, and
// (newc, crc) the data-less links seen before it.
type group struct {
	first   string
	pending []*header
}

// lister turns headers into entries. newc and crc store a hard-linked
// file's data with its last link only; the links before it are held
// until that one comes and then listed after it, as hard links to it
// (the way tar lists a hard link: to an earlier name that has the
// data). bin and odc store the data with every link, or with the first
// only: a later link without data is a hard link to the first.
type lister struct {
	p      parser
	lim    *engine.Limits
	keep   bool  // the entries are kept (an Archive): their memory stays charged
	mem    int64 // header memory charged
	seen   int64 // headers parsed
	n      int   // entries returned
	ends   int   // p.ends when the groups were last reset
	queue  []item
	groups map[linkKey]*group
	err    error  // what ends the listing, after the queue
	method string // the compressor's name, inside a compressed stream
}

// next returns the next entry, or io.EOF after the last.
func (l *lister) next() (item, error) {
	for len(l.queue) == 0 {
		if l.err != nil {
			return item{}, l.err
		}
		h, err := l.p.next(l.mem)
		if l.p.ends != l.ends || err != nil {
			l.flush() // links of an archive that ended without their data
			l.ends = l.p.ends
		}
		if err != nil {
			l.err = err
			continue
		}
		if l.seen++; l.seen > l.lim.MaxEntries {
			l.err = errs.Limit("cpio: more than MaxEntries (%d) entries", l.lim.MaxEntries)
			continue
		}
		if err := l.add(h); err != nil {
			l.err = err
		}
	}
	it := l.queue[0]
	l.queue[0] = item{}
	l.queue = l.queue[1:]
	it.e.Index = l.n
	l.n++
	if !l.keep {
		l.mem -= cost(it.e)
	}
	return it, nil
}

// cost is the header memory of one entry.
func cost(e *arc.Entry) int64 {
	return entryCost + 2*int64(len(e.Name)+len(e.LinkTarget))
}

// charge counts n more bytes of header memory.
func (l *lister) charge(n int64) error {
	if l.mem += n; l.mem > l.lim.MaxHeaderMemory {
		return errs.Limit("cpio: headers need more than MaxHeaderMemory (%d bytes)", l.lim.MaxHeaderMemory)
	}
	return nil
}

// add files h: into the queue, or held as a link waiting for its data.
func (l *lister) add(h *header) error {
	t := h.mode & fwd.TypeMask
	if h.nlink > 1 && t != fwd.TypeDir {
		if l.groups == nil {
			l.groups = map[linkKey]*group{}
		}
		k := linkKey{h.dev, h.ino}
		g := l.groups[k]
		if g == nil {
			g = &group{}
			l.groups[k] = g
			if err := l.charge(entryCost); err != nil {
				return err
			}
		}
		newc := h.kind == kindNewc || h.kind == kindCRC
		switch {
		case g.first == "" && h.size == 0 && newc:
			g.pending = append(g.pending, h)
			return l.charge(entryCost + 2*int64(len(h.name)))
		case g.first == "":
			g.first = h.name
			if err := l.push(h, nil); err != nil {
				return err
			}
			for _, p := range g.pending {
				if p.name != h.name { // a name linked to itself is the same file
					if err := l.push(p, g); err != nil {
						return err
					}
				}
				l.mem -= entryCost + 2*int64(len(p.name))
			}
			g.pending = nil
			return nil
		case h.size == 0 && h.name != g.first:
			return l.push(h, g)
		}
	}
	return l.push(h, nil)
}

// flush lists the links still waiting for data when their archive
// ended: the first as an empty file, the others as links to it (as
// GNU cpio extracts them). The groups start again with the next archive
// (its inode numbers are its own).
func (l *lister) flush() {
	l.mem -= entryCost * int64(len(l.groups))
	for _, g := range l.groups {
		for _, p := range g.pending {
			l.mem -= entryCost + 2*int64(len(p.name))
		}
	}
	// Flush in stored order: gather the pending headers by where they were.
	var pend []*header
	for _, g := range l.groups {
		pend = append(pend, g.pending...)
	}
	slices.SortFunc(pend, func(a, b *header) int { return cmp.Compare(a.off, b.off) })
	firsts := map[linkKey]*group{}
	for _, p := range pend {
		k := linkKey{p.dev, p.ino}
		g := firsts[k]
		if g == nil || p.name == g.first {
			if g == nil {
				firsts[k] = &group{first: p.name}
			}
			if l.push(p, nil) != nil {
				return
			}
			continue
		}
		if l.push(p, g) != nil {
			return
		}
	}
	l.groups = nil
}

// push queues h's entry; with g, as a hard link to g.first.
func (l *lister) push(h *header, g *group) error {
	it := item{e: entryOf(h), off: h.off, size: h.size, sum: h.sum, crc: hasSum(h)}
	if l.method != "" {
		it.e.Method, it.e.PackedSize = l.method, -1
	}
	switch {
	case g != nil:
		it.e.Link, it.e.LinkTarget = arc.LinkHardlink, g.first
		it.e.Sys.(*tar.Header).Typeflag = tar.TypeLink
		it.e.Sys.(*tar.Header).Linkname = g.first
		it.e.Size, it.e.PackedSize, it.size = 0, 0, 0
	case h.mode&fwd.TypeMask == fwd.TypeLink:
		if h.size > l.lim.MaxHeaderMemory-l.mem {
			return errs.Limit("cpio: a symlink target of %d bytes passes MaxHeaderMemory (%d bytes)", h.size, l.lim.MaxHeaderMemory)
		}
		t, err := l.p.readName(h.size)
		if err != nil {
			return err
		}
		l.p.rem -= h.size
		it.target = t
		it.e.LinkTarget = t
		it.e.Sys.(*tar.Header).Linkname = t
	}
	if err := l.charge(cost(it.e)); err != nil {
		return err
	}
	l.queue = append(l.queue, it)
	return nil
}

// entryOf makes the Entry of h; Sys is an *archive/tar.Header with the
// owner, mode and device numbers, as tar's entries have.
func entryOf(h *header) *arc.Entry {
	e := fwd.UnixEntry(h.name, int64(h.mode), int(h.uid), int(h.gid), h.size, h.mtime)
	if e.Mode&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
		th := e.Sys.(*tar.Header)
		th.Devmajor, th.Devminor = int64(h.rmajor), int64(h.rminor)
	}
	if hasSum(h) {
		e.HashKind = "cpio sum"
		e.Hash = binary.BigEndian.AppendUint32(nil, h.sum)
	}
	return e
}

// hasSum reports whether h's data has a byte sum to verify: a regular
// file of the crc format (GNU cpio writes 0 for a symlink's target).
func hasSum(h *header) bool { return h.kind == kindCRC && h.mode&fwd.TypeMask == fwd.TypeReg }

// sumReader adds up the bytes read from r and, at its end, compares
// the sum with the one the crc header stored.
type sumReader struct {
	r    io.Reader
	want uint32
	got  uint32
	name string
}

func (s *sumReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for _, c := range p[:n] {
		s.got += uint32(c)
	}
	if err == io.EOF && s.got != s.want {
		return n, fmt.Errorf("%w: cpio: %s: byte sum %08x, the header says %08x", errs.ErrChecksum, s.name, s.got, s.want)
	}
	return n, err
}

// errClosed is what a closed entry reader returns.
var errClosed = errors.New("cpio: read of a closed entry")
