package tar

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/inner"
	"github.com/go-unarc/unarc/internal/pool"
)

// Format registers tar (plain, or inside gzip, bzip2, xz, zstd, lzip or
// .lzma) and the bare compressed single files with the root. It has no
// Magic: a tar header is recognised by its checksum at offset 0 and the
// compressors by their magic at offset 0 (sniff, sniffBytes), never by a
// scan, so a stray 1f 8b in an SFX stub is not taken for gzip.
var Format = arc.Format{
	Name: "tar",
	Extensions: []string{".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz",
		".tar.zst", ".tzst", ".tar.lz", ".tar.lzma", ".gz", ".bz2", ".xz", ".zst", ".lz", ".lzma"},
	Sniff:        sniff,
	SniffHead:    sniffBytes,
	PreferReader: preferReader,
	Open: func(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
		a, err := Open(ra, size, conf.From(cfg))
		switch {
		case err != nil:
			return nil, err
		case a.inner != nil:
			return a.openInner(cfg)
		}
		return a, nil
	},
	NewReader: func(r io.Reader, cfg *arc.Config) (arc.Reader, error) {
		z, err := NewReader(r, conf.From(cfg))
		switch {
		case err != nil:
			return nil, err
		case z.inner != nil:
			return z.readInner(cfg)
		}
		return z, nil
	},
	OpenIndex:  openIndex,
	IndexNames: []string{"tar"}, // and each compressor's (register)
}

// sniffBytes reports whether head, the first bytes of an input, starts a
// tar archive or a stream of one of the compressors (whose content is a
// tar archive or a single file).
func sniffBytes(head []byte) bool {
	return isHeader(head) || detectKind(head) != kindNone
}

// sniff is sniffBytes on the first bytes of ra.
func sniff(ra io.ReaderAt, size int64) bool {
	if size < 0 {
		return false
	}
	hp := readHead(ra, size)
	defer pool.Put(hp)
	return sniffBytes(*hp)
}

// readHead reads the first block of ra into a pooled buffer (an array
// handed to ReadAt, an interface method, would escape to the heap on
// every open).
func readHead(ra io.ReaderAt, size int64) *[]byte {
	hp := pool.Get(blockSize)
	n, _ := ra.ReadAt((*hp)[:min(size, blockSize)], 0)
	*hp = (*hp)[:n]
	return hp
}

// formatName is what Archive.FormatName and Reader.FormatName report:
// "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz", "tar.lzma"
// for tarballs; "gzip", "bzip2", "xz", "zstd", "lzip", "lzma" for a
// single compressed file.
func formatName(kind compKind, bare bool) string {
	switch {
	case kind == kindNone:
		return "tar"
	case bare:
		return kind.String()
	}
	return "tar." + compressorOf(kind).ext
}

func methodName(kind compKind) string {
	if kind == kindNone {
		return "stored"
	}
	return kind.String()
}

// bareName names the single file inside a compressed stream: the gzip
// FNAME (its last path element), else the input's file name without the
// compressor's suffix (name.gz → name, name.tgz → name.tar), else the
// name with ".out" added; "stdin" when the input has no name ("" or "-",
// as for a pipe).
func bareName(kind compKind, fname, input string) string {
	if fname != "" {
		if b := path.Base(strings.ReplaceAll(fname, "\\", "/")); b != "." && b != "/" && b != ".." {
			return b
		}
	}
	if input == "" || input == "-" {
		return "stdin"
	}
	base := path.Base(strings.ReplaceAll(input, "\\", "/"))
	low := strings.ToLower(base)
	var sfx [][2]string
	if c := compressorOf(kind); c != nil {
		sfx = c.suffixes
	}
	for _, s := range sfx {
		if strings.HasSuffix(low, s[0]) && len(base) > len(s[0]) {
			return base[:len(base)-len(s[0])] + s[1]
		}
	}
	return base + ".out"
}

// Archive is random access over a tar archive or a compressed single
// file in an io.ReaderAt.
//
// A plain tar is listed by reading its headers only (data is skipped by
// offset), and an entry is read straight from its data offset; a GNU
// sparse entry is read through the header reader from its header.
//
// A compressed tar has no directory: Open decodes the whole stream once
// to list it (and to verify the compressor's checksums at its end; an
// index from Index, reopened with the root's WithIndex, lists without that), and
// opening an entry decodes the stream again from its start up to that
// entry. The Archive keeps the decoder of the last closed entry, so
// opening entries in stored order (Extract, a loop over Entries)
// continues from there and costs one more decoding pass in all; opening
// an earlier entry, or several at once, decodes from the start each
// time. Seekable readers (OpenAt: the root's OpenSeekable and fs.FS
// files) of gzip, bzip2, lzip, .lzma, xz and multi-frame zstd streams
// resume from checkpoints of the stream instead (seek.go). A compressed single file
// is one entry whose size is not known before reading it (-1); reading
// it decodes the stream.
type Archive struct {
	ra      io.ReaderAt
	size    int64
	kind    compKind
	bare    bool
	lim     engine.Limits
	workers int
	check   string // streamCheck
	ents    []*arc.Entry
	offs    []int64 // plain tar: data offset of entry i; header offset for sparse ones (-1: unknown); compressed: in the decoded stream
	warns   []error // damage: the archive cut short, the stream damaged
	dots    []error // dotWarning's (the archive is whole)
	dmg     error   // the damage to a compressed stream after entry dmgAt (see damaged)
	dmgAt   int
	cps     cpcache.Cache // seek.go
	ix      *ixState      // opened from an index (persist.go)
	inner   *inner.Format // a compressed single file that is an archive of that format (inner.go)

	mu     sync.Mutex
	idle   *cursor // compressed tar: the decoder after the last closed entry
	sidle  *spass  // compressed: the seekable pass after the last closed seekable reader (seek.go)
	closed bool
}

// cursor is one decoding pass over a compressed (or plain) tar stream.
// The Archive's cursors come from cursorPool (newCursor, free): with
// their header reader, section and first block inside, a pass over an
// archive allocates only the headers it returns.
type cursor struct {
	in   countReader
	dec  decomp
	ah   ahead // dec decoding ahead on its own goroutine (Workers > 1)
	g    guard
	head prefixReader
	tr   headerReader // set by openTar
	next int          // index of the entry the next tr.Next returns

	sec sectionReader   // Archive: the whole input
	hb  [blockSize]byte // the first decoded block
}

var (
	cursorPool pool.Of[cursor]
	headerPool pool.Of[headerReader] // for listing a plain tar
)

// newCursor starts a pass over a's whole input from a pooled cursor,
// its first decoded block in hb[:n]; free gives the cursor back.
func (a *Archive) newCursor() (c *cursor, n int, err error) {
	c = cursorPool.Get()
	c.sec = sectionReader{ra: a.ra, end: a.size}
	if n, err = c.start(&c.sec, a.size, a.kind, &a.lim, a.workers, c.hb[:]); err != nil {
		c.free()
		return nil, 0, err
	}
	return c, n, nil
}

// free closes a pooled cursor and returns it; its owner (an entryReader,
// the Archive's idle slot) has already let go of it.
func (c *cursor) free() {
	c.close()
	c.sec = sectionReader{}
	cursorPool.Put(c)
}

// openTar starts reading headers from the decoded stream.
func (c *cursor) openTar() {
	c.tr.reset(&c.head)
}

// prefixReader reads buf first, then r.
type prefixReader struct {
	buf []byte
	r   io.Reader
}

func (p *prefixReader) Read(b []byte) (int, error) {
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// start opens a decoding pass over src (size bytes, -1: unknown): the
// decompressor (kind != None), the limit guard, and the first block
// decoded into head.
func (c *cursor) start(src io.Reader, size int64, kind compKind, lim *engine.Limits, workers int, head []byte) (int, error) {
	c.in.r = src
	c.in.n.Store(0)
	c.next = 0
	var out io.Reader = &c.in
	if kind != kindNone {
		if err := c.dec.open(kind, &c.in, size, lim, workers); err != nil {
			return 0, err
		}
		out = &c.dec
		if workers > 1 && readsAhead(kind) && aheadFits(kind, lim) {
			c.ah.start(&c.dec)
			out = &c.ah
		}
	}
	c.g.reset(out, &c.in, lim)
	n, err := io.ReadFull(&c.g, head)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	c.head = prefixReader{buf: head[:n], r: &c.g}
	return n, err
}

// readsAhead: the decoders that run on one goroutine, so decoding ahead
// on another overlaps them with the caller's work. bzip2 and zstd use
// Workers themselves (their own decoders run concurrently).
func readsAhead(k compKind) bool {
	c := compressorOf(k)
	return c != nil && c.aheadWindow != nil
}

// aheadFits: the read-ahead ring counts against MaxMemory on top of the
// most the decoder may hold (its row's aheadWindow: 32 KiB for gzip, up to the
// dictionary limit for the LZMA family, whose streams announce theirs
// only block by block); without room for both the stream is decoded on
// the caller's goroutine, so a worker count never changes what the
// limits admit.
func aheadFits(k compKind, lim *engine.Limits) bool {
	need := lzmaWindow(lim)
	if c := compressorOf(k); c != nil && c.aheadWindow != nil {
		need = c.aheadWindow(lim)
	}
	return need <= lim.MaxMemory-aheadCost
}

func (c *cursor) close() {
	c.ah.stop()
	if c.dec.rd != nil {
		c.dec.Close()
	}
	c.tr.release()
	c.head = prefixReader{}
}

// drain reads the compressed stream to its end after the tar archive
// ended, so the compressor's trailing checks (gzip CRC32 and ISIZE, the
// xz index, zstd checksums, lzip trailers) are verified.
func (c *cursor) drain(kind compKind) error {
	if kind == kindNone {
		return nil
	}
	buf := c.tr.buffer()
	for {
		if _, err := c.head.Read(buf); err != nil {
			if err == io.EOF {
				err = nil
			}
			return err
		}
	}
}

// Open lists the archive in ra (size bytes), with the options applied in
// order (none: default limits, no name).
func Open(ra io.ReaderAt, size int64, opts ...arc.Option) (*Archive, error) {
	cfg, err := conf.ForInput(ra, size, opts...)
	if err != nil {
		return nil, err
	}
	a := &Archive{ra: ra, size: size, lim: cfg.Bounds, workers: cfg.Workers}
	hp := readHead(ra, size)
	head := *hp
	a.kind = detectKind(head)
	a.check = streamCheck(a.kind, head)
	plain := a.kind == kindNone && isHeader(head)
	pool.Put(hp)
	if a.kind == kindNone {
		if !plain {
			return nil, errs.ErrFormat
		}
		sr := &seekReader{ra: ra, size: size}
		tr := headerPool.Get() // its block escapes (read into through an interface)
		tr.reset(sr)
		err := a.list(tr, sr, nil)
		tr.release()
		headerPool.Put(tr)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	c, m, err := a.newCursor()
	if err != nil {
		return nil, err
	}
	defer c.free()
	if !isHeader(c.hb[:m]) {
		a.bare = true
		a.inner = inner.Match(c.hb[:m])
		a.ents = []*arc.Entry{bareEntry(a.kind, &c.dec, cfg.Name, size)}
		return a, nil
	}
	c.openTar()
	if err := a.list(&c.tr, nil, c); err != nil {
		if !a.damaged(err) {
			return nil, err
		}
	} else if len(a.warns) > 0 {
		a.damaged(nil) // cut short: the stream's checks after the last entry never came
	} else if err := c.drain(a.kind); err != nil {
		if err = tarErr(err); !a.damaged(err) {
			return nil, err
		}
	}
	return a, nil
}

// damaged keeps the entries listed before damage to a compressed stream
// (corrupt, cut short, or failing its checksum; err, or the warning list
// already made for a cut) instead of failing Open, as the forward Reader
// returns them before its error: the damage is a warning, and the error
// of the last entry listed once its data is read (its bytes precede the
// damage, but the stream's check that covers them failed or never came;
// an entry the damage falls inside fails there anyway). It reports false
// when nothing was listed or err is no such damage (a limit, say).
func (a *Archive) damaged(err error) bool {
	if len(a.ents) == 0 {
		return false
	}
	if err == nil {
		err = a.warns[len(a.warns)-1]
	} else if errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrTruncated) || errors.Is(err, errs.ErrChecksum) {
		err = fmt.Errorf("the compressed stream is damaged after %d entries: %w", len(a.ents), err)
		a.warns = append(a.warns, err)
	} else {
		return false
	}
	a.dmg, a.dmgAt = err, len(a.ents)-1
	return true
}

// damageOf is the damage entry i's reader reports at its end, or nil.
func (a *Archive) damageOf(i int) error {
	if a.dmg != nil && i == a.dmgAt {
		return a.dmg
	}
	return nil
}

func bareEntry(kind compKind, d *decomp, input string, packed int64) *arc.Entry {
	e := &arc.Entry{Name: bareName(kind, d.name, input), Size: -1, PackedSize: packed,
		Mode: 0o644, Method: methodName(kind)}
	e.Modified = d.mod // gzip's MTIME, else zero
	return e
}

// round512 rounds n up to whole blocks.
func round512(n int64) int64 { return (n + blockSize - 1) &^ (blockSize - 1) }

// list reads every header; sr is the plain tar's source (nil when
// compressed), whose position gives the data offsets, or c the pass
// over the compressed stream, whose position does (the header reader
// reads no further than a header and its padding).
func (a *Archive) list(tr *headerReader, sr *seekReader, c *cursor) error {
	var mem int64
	method := methodName(a.kind)
	hdrStart := int64(0) // plain: where the next entry's headers start; -1 unknown
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			err = tarErr(err)
			if errors.Is(err, errs.ErrTruncated) && len(a.ents) > 0 {
				a.warns = append(a.warns, fmt.Errorf("%w: the archive ends after %d entries, in the headers or data that follow", errs.ErrTruncated, len(a.ents)))
				return nil
			}
			return err
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			if sr != nil {
				hdrStart = round512(sr.pos)
			}
			continue
		}
		if int64(len(a.ents)) >= a.lim.MaxEntries {
			return errs.Limit("more than MaxEntries (%d) entries", a.lim.MaxEntries)
		}
		if mem += headerCost(h); mem > a.lim.MaxHeaderMemory {
			return errs.Limit("tar headers need more than MaxHeaderMemory (%d bytes)", a.lim.MaxHeaderMemory)
		}
		packed, off := int64(-1), int64(-1)
		sparse := isSparse(h)
		e := entryOf(h, method, packed, len(a.ents))
		if sr != nil {
			if sparse {
				off, hdrStart = hdrStart, -1
			} else {
				off = sr.pos
				e.PackedSize = e.Size
				hdrStart = round512(sr.pos + e.Size)
			}
		} else if c != nil && !sparse {
			off = c.g.out - int64(len(c.head.buf))
		}
		if w := dotWarning(e); w != nil {
			a.dots = append(a.dots, w)
		}
		a.ents = append(a.ents, e)
		a.offs = append(a.offs, off)
	}
}

// tarErr maps the header reader's and the stream's errors to the sentinels.
func tarErr(err error) error {
	switch {
	case err == nil || err == io.EOF || isOurs(err):
		return err
	case err == io.ErrUnexpectedEOF:
		return errs.Truncated("tar")
	}
	return errs.Corrupt("tar: %v", err)
}

// seekReader reads ra from pos; the header reader skips entry data by
// moving pos.
type seekReader struct {
	ra   io.ReaderAt
	size int64
	pos  int64
}

func (s *seekReader) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		return 0, io.EOF
	}
	if rem := s.size - s.pos; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := s.ra.ReadAt(p, s.pos)
	s.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// FormatName says what was detected: "tar", "tar.gz" … or, for a single
// compressed file, "gzip" ….
func (a *Archive) FormatName() string { return formatName(a.kind, a.bare) }

// StreamCheck names the checksum of the compressed stream that covers
// every entry's content ("gzip CRC32", "bzip2 CRC32", "xz CRC64", "xz
// CRC32", "xz SHA-256", "zstd XXH64", "lzip CRC32"), or "" when there is
// none (a plain tar, .lzma, xz check None, zstd without a checksum). Tar
// entries have no checksum of their own (the header checksum covers the
// header only). Open decodes the whole stream and verifies that checksum
// before it returns; reading an entry decodes it again. A damaged stream
// (Open kept the entries before the damage, see Warnings) covers none:
// "".
func (a *Archive) StreamCheck() string {
	if a.dmg != nil {
		return ""
	}
	return a.check
}

// Entries lists the entries in stored order (PAX global headers are not entries).
func (a *Archive) Entries() []*arc.Entry { return a.ents }

// Comment is empty: tar has none.
func (a *Archive) Comment() string { return "" }

// Warnings reports a tar cut short after complete headers, and damage
// to a compressed stream after the entries listed (the last of them
// fails with it when read); then entries that name the archive's root
// but are no directory (Extract refuses them).
func (a *Archive) Warnings() []error {
	if len(a.dots) == 0 {
		return a.warns
	}
	return append(slices.Clip(a.warns), a.dots...)
}

// Close releases the kept decoder; readers still open keep theirs until
// they are closed.
func (a *Archive) Close() error {
	a.mu.Lock()
	a.closed = true
	c, s := a.idle, a.sidle
	a.idle, a.sidle = nil, nil
	a.mu.Unlock()
	if c != nil {
		c.free()
	}
	if s != nil {
		s.close()
	}
	a.cps.Clear()
	return nil
}

// Open returns a reader of entry i's content.
func (a *Archive) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(a.ents) {
		return nil, fmt.Errorf("tar: no entry %d", i)
	}
	e := a.ents[i]
	if err := a.checkIndexed(i, false); err != nil {
		return nil, err
	}
	if a.kind == kindNone {
		return a.openPlain(i, e)
	}
	if a.bare {
		c, _, err := a.newCursor()
		if err != nil {
			return nil, err
		}
		return &entryReader{r: &c.head, c: c, a: a, bare: true}, nil
	}
	if e.Size == 0 {
		return &entryReader{dmg: a.damageOf(i)}, nil
	}
	c, err := a.seek(i)
	if err != nil {
		return nil, err
	}
	return &entryReader{r: &c.tr, c: c, a: a, dmg: a.damageOf(i)}, nil
}

// seek returns a pass positioned at entry i's data: the kept one when it
// has not passed i, else a new one from the start.
func (a *Archive) seek(i int) (*cursor, error) {
	a.mu.Lock()
	c := a.idle
	if c != nil && c.next <= i {
		a.idle = nil
	} else {
		c = nil
	}
	a.mu.Unlock()
	if c == nil {
		var err error
		if c, _, err = a.newCursor(); err != nil {
			return nil, err
		}
		c.openTar()
	}
	for c.next <= i {
		h, err := c.tr.Next()
		if err != nil {
			c.free()
			if err == io.EOF {
				return nil, errs.Corrupt("tar: the stream ends before entry %d it listed", i)
			}
			return nil, tarErr(err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if c.next == i {
			if err := a.checkSeek(i, h, c.g.out-int64(len(c.head.buf))); err != nil {
				c.free()
				return nil, err
			}
			if want := a.ents[i].Sys.(*tar.Header); h.Name != want.Name || h.Size != want.Size {
				c.free()
				return nil, errs.Corrupt("tar: entry %d decodes differently than when listed", i)
			}
		}
		c.next++
	}
	return c, nil
}

// openPlain reads a plain tar entry from its data offset, or a sparse
// one through the header reader from its header.
func (a *Archive) openPlain(i int, e *arc.Entry) (io.ReadCloser, error) {
	h := e.Sys.(*tar.Header)
	if !isSparse(h) {
		if e.Size <= 0 {
			return &entryReader{}, nil
		}
		return &sectionReader{ra: a.ra, pos: a.offs[i], end: a.offs[i] + e.Size}, nil
	}
	tr := new(headerReader)
	target := i
	if a.offs[i] >= 0 {
		tr.reset(&seekReader{ra: a.ra, size: a.size, pos: a.offs[i]})
		target = 0
	} else {
		tr.reset(&seekReader{ra: a.ra, size: a.size})
	}
	for n := 0; n <= target; {
		hh, err := tr.Next()
		if err != nil {
			if err == io.EOF {
				return nil, errs.Corrupt("tar: entry %d not found again", i)
			}
			return nil, tarErr(err)
		}
		if hh.Typeflag != tar.TypeXGlobalHeader {
			n++
		}
	}
	return &entryReader{r: tr}, nil
}

// sectionReader reads one plain entry's data; the input ending early is
// ErrTruncated.
type sectionReader struct {
	ra       io.ReaderAt
	pos, end int64
}

func (s *sectionReader) Read(p []byte) (int, error) {
	if s.ra == nil {
		return 0, errClosed
	}
	if s.pos >= s.end {
		return 0, io.EOF
	}
	if rem := s.end - s.pos; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := s.ra.ReadAt(p, s.pos)
	s.pos += int64(n)
	if err == io.EOF {
		if s.pos < s.end {
			return n, errs.Truncated("tar entry data")
		}
		err = nil
	}
	return n, err
}

func (s *sectionReader) Close() error { s.ra = nil; return nil }

// entryReader reads an entry through a decoding pass; Close hands the
// pass back to the Archive for the next entry.
type entryReader struct {
	r    io.Reader // nil: empty entry
	c    *cursor
	a    *Archive
	bare bool
	done bool
	dmg  error // Archive.damageOf: the error in place of io.EOF
}

func (r *entryReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, errClosed
	}
	if r.r == nil {
		return 0, r.eof()
	}
	n, err := r.r.Read(p)
	if err == io.EOF {
		err = r.eof()
	} else if err != nil {
		err = tarErr(err)
	}
	return n, err
}

func (r *entryReader) eof() error {
	if r.dmg != nil {
		return r.dmg
	}
	return io.EOF
}

func (r *entryReader) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	c := r.c
	r.r, r.c = nil, nil
	if c == nil {
		return nil
	}
	if r.bare || r.a == nil {
		c.free()
		return nil
	}
	r.a.mu.Lock()
	old := r.a.idle
	if r.a.closed {
		old = c
	} else {
		r.a.idle = c
	}
	r.a.mu.Unlock()
	if old != nil {
		old.free()
	}
	return nil
}

// preferReader is Format.PreferReader: ra is a compressed tarball, which
// the forward Reader decodes once where the Archive decodes it twice (to
// list it, then to read it). That is seen by decoding the stream's start,
// and a zstd block (up to 128 KiB) or a bzip2 block (up to 900 KiB) may
// not fit in the first 64 KiB (mixed-200's tar.zst opens with a 128 KiB
// raw block of random data): for those the start is read again, long
// enough for a whole first block. A single compressed file stays an
// Archive (named from the file, its packed size known).
func preferReader(ra io.ReaderAt, size int64) bool {
	head := make([]byte, min(max(size, 0), 64<<10))
	n, _ := ra.ReadAt(head, 0)
	head = head[:n]
	if isCompressedTar(head) {
		return true
	}
	need := 0
	switch detectKind(head) {
	case kindZstd:
		need = 256 << 10
	case kindBzip2:
		need = 1088 << 10 // a 900 kB block of random data grows a little
	}
	if size <= int64(len(head)) || need == 0 {
		return false // all of the input was in head, or it decodes as it reads
	}
	more := make([]byte, min(size, int64(need)))
	n, _ = ra.ReadAt(more, 0)
	return isCompressedTar(more[:n])
}

// isCompressedTar reports whether head, the first bytes of an input, is a
// compressed stream whose content starts with a tar header, or with an
// archive of a format registered with internal/inner (a cpio.gz). It decodes
// head, so the stream's first block must be whole in it: a few KiB for
// gzip, xz, lzip and .lzma, which decode as they read, but up to 128 KiB
// (and the frame header) for zstd and up to 900 KiB for bzip2 (false
// when head holds less). A caller holding a file may then prefer the forward Reader,
// which decodes such a stream once, to the Archive, which decodes it to
// list it and again to read entries.
func isCompressedTar(head []byte) bool {
	kind := detectKind(head)
	if kind == kindNone {
		return false
	}
	var b [blockSize]byte
	d := b[:peekDecoded(kind, head, b[:])]
	return isHeader(d) || inner.Match(d) != nil
}
