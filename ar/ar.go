// Package ar reads ar archives: System V/GNU (long names in the "//"
// table, referred to as "/N") and BSD ("#1/N": the name is stored at the
// start of the member's data), the format of static libraries and of
// Debian packages (.deb).
//
// # Members
//
// Each member is an entry with its name, size, modification time,
// permission bits and owner (Entry.Sys is an *archive/tar.Header with
// Uid and Gid, as tar's entries have). The symbol tables ("/",
// "/SYM64/", "__.SYMDEF") and the long-name table ("//") are the
// linker's and ar's own records: they are not listed, as ar t does not
// list them. Thin archives ("!<thin>") are not read. Sizes are checked
// against the input: a member whose data passes its end is an error
// matching unarc.ErrTruncated (Open keeps the members before it and
// reports it in Warnings); a long name outside the table, a bad number
// or a missing header is unarc.ErrCorrupt; member counts, names and the
// listing are bounded by Limits.MaxEntries and MaxHeaderMemory.
//
// # Debian packages
//
// A .deb lists as the ar archive it is: debian-binary, control.tar.*
// and data.tar.*. With arc.WithDebData (the root's WithDebData, the
// command line's -deb-data) the Format opens the package's data tarball
// as the archive instead, through the tar package (data.tar, .gz, .xz,
// .zst, .bz2, .lzma): the files the package installs.
package ar

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
)

// Format registers ar with the root, detected by its magic "!<arch>\n"
// at offset 0 only (Sniff, SniffHead; no Magic: it is not searched for
// behind prepended data).
var Format = arc.Format{
	Name:       "ar",
	Extensions: []string{".a", ".ar", ".deb", ".lib"},
	Sniff:      sniff,
	SniffHead:  sniffHead,
	Open:       openFormat,
	NewReader:  newFormatReader,
}

// sniffHead compares the magic without converting all of head (up to
// the root's whole peek buffer) to a string.
func sniffHead(head []byte) bool {
	return len(head) >= len(magic) && string(head[:len(magic)]) == magic
}

func sniff(ra io.ReaderAt, size int64) bool {
	var b [len(magic)]byte
	if size < int64(len(b)) {
		return false
	}
	n, _ := ra.ReadAt(b[:], 0)
	return n == len(b) && sniffHead(b[:])
}

// entryCost is what the listing keeps per member besides its name.
const entryCost = 300

// item is a member's entry and where its data is.
type item struct {
	e   *arc.Entry
	off int64
}

// Archive is random access over an ar archive in an io.ReaderAt: Open
// reads the member headers, skipping the data by offset.
type Archive struct {
	ra    io.ReaderAt
	items []item
	ents  []*arc.Entry
	warns []error
}

// Open lists the archive in ra (size bytes), with the options applied in
// order (none: default limits). It lists an ar archive (a .deb too);
// the Format opens a .deb's data tarball under arc.WithDebData.
func Open(ra io.ReaderAt, size int64, opts ...arc.Option) (*Archive, error) {
	p, err := openParser(ra, size, opts...)
	if err != nil {
		return nil, err
	}
	a := &Archive{ra: ra}
	var mem int64
	for {
		h, err := p.next(mem)
		if err == io.EOF {
			return a, nil
		}
		if err == nil {
			e := entryOf(h, len(a.ents))
			if mem += entryCost + 2*int64(len(h.name)); mem > p.lim.MaxHeaderMemory {
				err = errs.Limit("ar: headers need more than MaxHeaderMemory (%d bytes)", p.lim.MaxHeaderMemory)
			} else {
				a.items = append(a.items, item{e: e, off: h.off})
				a.ents = append(a.ents, e)
				continue
			}
		}
		if len(a.ents) == 0 || !isTruncated(err) {
			return nil, err
		}
		a.warns = append(a.warns, errs.Incomplete(fmt.Errorf("the archive ends after %d members: %w", len(a.ents), err)))
		return a, nil
	}
}

// openParser starts parsing the ar archive in ra (size bytes) after its
// magic, with the options resolved: how Open and a .deb's data begin.
func openParser(ra io.ReaderAt, size int64, opts ...arc.Option) (*parser, error) {
	cfg, err := conf.ForInput(ra, size, opts...)
	if err != nil {
		return nil, err
	}
	if !sniff(ra, size) {
		return nil, errs.ErrFormat
	}
	return &parser{src: &fwd.At{RA: ra, Size: size, Off: int64(len(magic)), Name: "ar"}, lim: &cfg.Bounds, end: size}, nil
}

func isTruncated(err error) bool { return errors.Is(err, errs.ErrTruncated) }

// entryOf makes the Entry of h, the idx-th member.
func entryOf(h *header, idx int) *arc.Entry {
	e := fwd.UnixEntry(h.name, h.mode, int(h.uid), int(h.gid), h.size, h.mtime)
	e.Index = idx
	return e
}

// Entries lists the members in stored order.
func (a *Archive) Entries() []*arc.Entry { return a.ents }

// Comment is empty: ar has none.
func (a *Archive) Comment() string { return "" }

// Warnings reports an archive cut short (the members before the cut are
// listed).
func (a *Archive) Warnings() []error { return a.warns }

// Close releases nothing: the Archive holds no decoder.
func (a *Archive) Close() error { return nil }

// Open returns a reader of member i's data.
func (a *Archive) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(a.items) {
		return nil, fmt.Errorf("ar: no member %d", i)
	}
	return io.NopCloser(io.NewSectionReader(a.ra, a.items[i].off, a.ents[i].Size)), nil
}

// Reader reads an ar archive forward-only from a stream.
type Reader struct {
	p    parser
	src  fwd.Stream
	n    int
	left int64
	err  error
}

// NewReader starts reading r (positioned at the archive's first byte),
// with the options applied in order (none: default limits).
func NewReader(r io.Reader, opts ...arc.Option) (*Reader, error) {
	cfg, err := conf.New(opts...)
	if err != nil {
		return nil, err
	}
	return newReader(r, &cfg)
}

func newReader(r io.Reader, cfg *arc.Config) (*Reader, error) {
	z := &Reader{}
	z.src.Name = "ar"
	z.src.Reset(r)
	var b [len(magic)]byte
	if err := z.src.Full(b[:]); err != nil || !sniffHead(b[:]) {
		z.src.Release()
		if err != nil && !isTruncated(err) {
			return nil, err
		}
		return nil, errs.ErrFormat
	}
	lim := cfg.Bounds
	z.p = parser{src: &z.src, lim: &lim, end: -1}
	return z, nil
}

// Next advances to the next member, skipping what is left of the
// current one; it returns io.EOF after the last.
func (z *Reader) Next() (*arc.Entry, error) {
	if z.err != nil {
		return nil, z.err
	}
	z.left = 0
	h, err := z.p.next(0)
	if err != nil {
		z.err = err
		return nil, err
	}
	z.left = h.size
	e := entryOf(h, z.n)
	z.n++
	return e, nil
}

// Read reads the current member's data.
func (z *Reader) Read(p []byte) (int, error) {
	if z.left <= 0 {
		if z.err != nil && z.err != io.EOF {
			return 0, z.err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > z.left {
		p = p[:z.left]
	}
	n, err := z.src.Read(p)
	z.left -= int64(n)
	z.p.rem -= int64(n)
	if err == io.EOF {
		err = errs.Truncated("ar member data")
	}
	return n, err
}

// Close ends reading; it does not close the underlying reader.
func (z *Reader) Close() error {
	z.left = 0
	z.src.Release()
	if z.err == nil {
		z.err = errClosed
	}
	return nil
}

var errClosed = errors.New("ar: read after Close")

// errNoData is the error of a package opened with arc.WithDebData that
// has no data tarball.
var errNoData = fmt.Errorf("%w: ar: no data.tar member (not a Debian package)", errs.ErrFormat)
