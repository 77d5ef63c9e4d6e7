// Package cpio reads cpio archives: the old binary format (either byte
// order), the portable ASCII format odc ("070707"), and the SVR4 formats
// newc ("070701") and crc ("070702", whose byte sum of each file's data
// is verified: a mismatch is an error matching unarc.ErrChecksum when
// the entry has been read to its end).
//
// # Entries
//
// Names, sizes, modification times, permission bits (with setuid, setgid
// and sticky), directories, symlinks (the target is the entry's data,
// also in LinkTarget), devices, FIFOs and sockets are read as stored;
// Entry.Sys is an *archive/tar.Header holding the owner (Uid, Gid) and
// the device numbers (Devmajor, Devminor), as tar's entries do. Hard
// links: newc and crc store a linked file's data with its last name
// only; the names before it are listed after that one, as hard links to
// it, so a link's target is always an earlier entry that has the data
// (the way tar lists them). A group whose data never comes lists its
// first name as an empty file. In bin and odc a later name of a file
// seen before and stored without data is a hard link to the first.
//
// # Archives one after another
//
// The TRAILER!!! entry ends an archive; zeros after it (block padding)
// are skipped, and another archive starting there is read on, as an
// initramfs image is: concatenated archives list as one. Bytes after a
// trailer that start no archive end the listing with a warning.
//
// # Limits and errors
//
// The number of headers is bounded by Limits.MaxEntries, names, symlink
// targets and the listing by MaxHeaderMemory, an entry's size by
// MaxEntrySize; names are read in pieces, as the input holds them. An
// input cut short is an error matching unarc.ErrTruncated (Open keeps
// the entries before the cut and reports it in Warnings), a damaged
// header unarc.ErrCorrupt.
//
// # Compressed archives
//
// Through the root, a cpio archive inside gzip, bzip2, xz, zstd, lzip or
// .lzma (an initramfs image, an RPM payload) is read as the archive, by
// the tar package's decompressors (see internal/inner): FormatName says
// "cpio.gz", "cpio.xz" …, StreamCheck the stream's checksum, entries'
// Method the compressor. This package's own Open and NewReader read
// plain cpio.
package cpio

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
)

// Format registers cpio with the root. It has no Magic: the ASCII
// magics are six digits and the binary one two bytes, too weak to search
// for, so only a header at offset 0 is recognised (sniffHead).
var Format = arc.Format{
	Name:       "cpio",
	Extensions: []string{".cpio"},
	Sniff:      sniff,
	SniffHead:  sniffHead,
	Open: func(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
		return Open(ra, size, conf.From(cfg))
	},
	NewReader: func(r io.Reader, cfg *arc.Config) (arc.Reader, error) {
		return NewReader(r, conf.From(cfg))
	},
}

// sniffHead reports whether head starts with a cpio header: its magic,
// its numeric fields well formed and a name size from 1 to 4096 whose
// last byte, when head holds it, is the name's NUL.
func sniffHead(head []byte) bool {
	k := kindOf(head)
	if k == 0 || int64(len(head)) < k.headerSize() {
		return false
	}
	var nameSize int64
	switch k {
	case kindBinLE:
		nameSize = int64(head[20]) | int64(head[21])<<8
	case kindBinBE:
		nameSize = int64(head[20])<<8 | int64(head[21])
	case kindODC:
		if _, err := parseNum(head[6:odcSize], 8); err != nil {
			return false
		}
		v, _ := parseNum(head[59:65], 8)
		nameSize = int64(v)
	default:
		if _, err := parseNum(head[6:newcSize], 16); err != nil {
			return false
		}
		v, _ := parseNum(head[94:102], 16)
		nameSize = int64(v)
	}
	if nameSize < 1 || nameSize > 4096 {
		return false
	}
	end := k.headerSize() + nameSize - 1
	return end >= int64(len(head)) || head[end] == 0
}

// sniff is sniffHead on the first bytes of ra.
func sniff(ra io.ReaderAt, size int64) bool {
	var b [newcSize + 256]byte
	n, _ := ra.ReadAt(b[:min(max(size, 0), int64(len(b)))], 0)
	return sniffHead(b[:n])
}

// Archive is random access over a cpio archive (or several concatenated)
// in an io.ReaderAt: Open reads every header, skipping the data by
// offset, and an entry is read from its data offset. Inside a compressed
// stream (through the root) the archive is listed by decoding the stream
// once, and an entry is read by decoding it again from the start, or
// from where the last closed entry ended when entries are read in
// stored order (stream.go).
type Archive struct {
	ra    io.ReaderAt
	items []item
	ents  []*arc.Entry
	warns []error
	st    *streamed // inside a compressed stream, else nil
}

// Open lists the archive in ra (size bytes), with the options applied in
// order (none: default limits).
func Open(ra io.ReaderAt, size int64, opts ...arc.Option) (*Archive, error) {
	cfg, err := conf.ForInput(ra, size, opts...)
	if err != nil {
		return nil, err
	}
	src := &fwd.At{RA: ra, Size: size, Name: "cpio"}
	if b, _ := src.Peek(6); kindOf(b) == 0 {
		return nil, errs.ErrFormat
	}
	a := &Archive{ra: ra}
	if err := a.list(&lister{p: parser{src: src, lim: &cfg.Bounds}, lim: &cfg.Bounds, keep: true}, size); err != nil {
		return nil, err
	}
	return a, nil
}

// list reads every header with l. size is the input's (-1: a stream),
// which an entry's data must not pass. An input cut short after whole
// entries is a warning (and damage to a compressed stream).
func (a *Archive) list(l *lister, size int64) error {
	for {
		it, err := l.next()
		if err == io.EOF {
			a.warns = append(a.warns, l.endWarnings()...)
			return nil
		}
		if err == nil && size >= 0 && it.off+it.size > size {
			err = errs.Truncated(fmt.Sprintf("cpio: entry %q needs %d bytes past the end of the input", it.e.Name, it.off+it.size-size))
		}
		if err != nil {
			if len(a.ents) == 0 || !(errors.Is(err, errs.ErrTruncated) || size < 0 && (errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrChecksum))) {
				return err
			}
			a.warns = append(a.warns, errs.Incomplete(fmt.Errorf("the archive ends after %d entries: %w", len(a.ents), err)))
			return nil
		}
		a.items = append(a.items, it)
		a.ents = append(a.ents, it.e)
	}
}

// endWarnings are what the end of the input says: no trailer, or bytes
// after the last one that start no archive.
func (l *lister) endWarnings() []error {
	switch {
	case l.p.ends == 0 && l.n > 0:
		return []error{errs.Incomplete(errs.Truncated("cpio: the archive ends without its TRAILER!!! entry"))}
	case l.p.junk:
		return []error{errs.Notice(errs.Corrupt("cpio: data that is no cpio archive follows the last trailer, at offset %d", l.p.src.Pos()))}
	}
	return nil
}

// Entries lists the entries (hard links after the name holding their
// data, see the package documentation).
func (a *Archive) Entries() []*arc.Entry { return a.ents }

// Comment is empty: cpio has none.
func (a *Archive) Comment() string { return "" }

// Warnings reports an archive cut short (the entries before the cut are
// listed), one without its trailer, and data after the last trailer.
func (a *Archive) Warnings() []error { return a.warns }

// Close releases the decoder of a compressed stream; a plain archive
// holds none.
func (a *Archive) Close() error {
	if a.st != nil {
		return a.st.close()
	}
	return nil
}

// Open returns a reader of entry i's data; for the crc format reading it
// to its end verifies the byte sum.
func (a *Archive) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(a.items) {
		return nil, fmt.Errorf("cpio: no entry %d", i)
	}
	it := &a.items[i]
	r := &entryReader{}
	switch {
	case it.target != "":
		r.r = strings.NewReader(it.target)
	case it.size == 0:
		r.r = eofReader{}
	case a.st != nil:
		c, err := a.st.seek(it.off)
		if err != nil {
			return nil, err
		}
		r.c, r.st = c, a.st
		r.r = io.LimitReader(&c.src, it.size)
		r.left = it.size
	default:
		r.r = io.NewSectionReader(a.ra, it.off, it.size)
	}
	if it.crc {
		r.sum = sumReader{r: r.r, want: it.sum, name: it.e.Name}
		r.r = &r.sum
	}
	return r, nil
}

// entryReader reads one entry's data: from the input, or through a
// decoding pass c of a compressed stream, which Close hands back.
type entryReader struct {
	r    io.Reader
	sum  sumReader
	c    *cursor
	st   *streamed
	left int64 // bytes of a pass not yet read
}

func (r *entryReader) Read(p []byte) (int, error) {
	if r.r == nil {
		return 0, errClosed
	}
	n, err := r.r.Read(p)
	r.left -= int64(n)
	if err == io.EOF && r.left > 0 && r.c != nil {
		err = errs.Truncated("cpio entry data")
	}
	if err == io.ErrUnexpectedEOF {
		err = errs.Truncated("cpio entry data")
	}
	return n, err
}

func (r *entryReader) Close() error {
	r.r = nil
	if r.c != nil {
		r.st.put(r.c)
		r.c = nil
	}
	return nil
}

// Reader reads a cpio archive (or several concatenated) forward-only
// from a stream.
type Reader struct {
	l     lister
	src   fwd.Stream
	left  int64 // data of the current entry not read
	data  dataReader
	sum   sumReader
	tgt   strings.Reader
	body  io.Reader
	warns []error
	err   error
	name  string    // FormatName
	check string    // StreamCheck
	done  io.Closer // the decoder of a compressed stream, closed by Close
}

// NewReader starts reading r (positioned at the archive's first byte),
// with the options applied in order (none: default limits).
func NewReader(r io.Reader, opts ...arc.Option) (*Reader, error) {
	cfg, err := conf.New(opts...)
	if err != nil {
		return nil, err
	}
	z := &Reader{name: "cpio"}
	z.src.Name = "cpio"
	z.src.Reset(r)
	if b, err := z.src.Peek(6); err != nil || kindOf(b) == 0 {
		z.src.Release()
		if err == nil {
			err = errs.ErrFormat
		}
		return nil, err
	}
	lim := cfg.Bounds
	z.l = lister{p: parser{src: &z.src, lim: &lim}, lim: &lim}
	z.data.z = z
	return z, nil
}

// Next advances to the next entry, skipping what is left of the current
// one; it returns io.EOF after the last.
func (z *Reader) Next() (*arc.Entry, error) {
	if z.err != nil {
		return nil, z.err
	}
	z.left, z.body = 0, nil
	it, err := z.l.next()
	if err != nil {
		if err == io.EOF {
			z.warns = append(z.warns, z.l.endWarnings()...)
		}
		z.err = err
		return nil, err
	}
	switch {
	case it.target != "":
		z.tgt.Reset(it.target)
		z.body = &z.tgt
	case it.e.Link == arc.LinkNone:
		z.left = it.size
		z.body = &z.data
	default:
		z.body = eofReader{}
	}
	if it.crc {
		z.sum = sumReader{r: z.body, want: it.sum, name: it.e.Name}
		z.body = &z.sum
	}
	return it.e, nil
}

// Read reads the current entry's data; for the crc format reading it to
// its end verifies the byte sum.
func (z *Reader) Read(p []byte) (int, error) {
	if z.body == nil {
		if z.err != nil {
			return 0, z.err
		}
		return 0, io.EOF
	}
	return z.body.Read(p)
}

// Warnings reports, once the end is reached, an archive without its
// trailer and data after the last trailer.
func (z *Reader) Warnings() []error { return z.warns }

// FormatName says what was read: "cpio", or inside a compressed stream
// "cpio.gz", "cpio.xz" ….
func (z *Reader) FormatName() string { return z.name }

// StreamCheck names the checksum of the compressed stream that covers
// every entry ("gzip CRC32" …), "" for none or a plain archive.
func (z *Reader) StreamCheck() string { return z.check }

// Close ends reading; it does not close the underlying reader (through
// the root, the decoder of a compressed stream is released).
func (z *Reader) Close() error {
	z.body = nil
	if z.err == nil {
		z.err = errClosed
	}
	z.src.Release()
	if z.done != nil {
		d := z.done
		z.done = nil
		return d.Close()
	}
	return nil
}

// dataReader reads the current entry's data from the stream.
type dataReader struct{ z *Reader }

func (d *dataReader) Read(p []byte) (int, error) {
	z := d.z
	if z.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > z.left {
		p = p[:z.left]
	}
	n, err := z.src.Read(p)
	z.left -= int64(n)
	z.l.p.rem -= int64(n)
	if err == io.EOF {
		err = errs.Truncated("cpio entry data")
	}
	return n, err
}

// eofReader is an empty entry's data.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
