package unarc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/srcsize"
)

// Archive gives random access to the entries of an archive held in an
// io.ReaderAt. It is safe to open several entries concurrently; whether
// that decodes in parallel depends on the format (entries of one solid
// block share a decoder).
//
// Archive implements fs.FS, fs.StatFS, fs.ReadDirFS, fs.ReadFileFS,
// fs.ReadLinkFS and fs.SubFS over its entries. Stat, Lstat, ReadDir and ReadLink work
// from the listing alone: they never decode or decrypt anything.
// Symlinks behave as in os.DirFS: Open, Stat, ReadFile and ReadDir follow
// them, resolved inside the archive (relative to the link's directory);
// a link whose target is absolute, leaves the archive's root, is missing
// or loops (more than 40 links) fails with fs.ErrNotExist. Lstat and
// ReadLink, and the entries ReadDir lists, describe the link itself
// (fs.ModeSymlink). Opened files are SeekableEntry values: they also
// implement io.Seeker and io.ReaderAt, so http.FileServer(http.FS(a))
// serves Range requests; seeking backwards restarts from a stored
// offset or a decoder checkpoint (WithCheckpoints) where the format has
// one, else from the entry's start (in a solid block, the block's).
type Archive struct {
	a            arc.Archive
	view         any // engine.View(a), made once: the capabilities the format has
	format       string
	opts         *options
	pw           *passwords
	acct         *account // output and input of every entry reader
	closeVolumes func() error

	src      io.ReaderAt // what the format was opened over, for Index
	srcSize  int64
	sections []indexSection // an index's optional sections, kept for the next Index

	fsOnce sync.Once
	tree   *fsTree
}

// Open opens the archive in r (size bytes). The format is detected
// from content, including archives behind an SFX stub or other prepended
// data. For a multi-volume set, r is the first volume and WithVolumes or
// WithVolumeOpener says where the others are.
func Open(r io.ReaderAt, size int64, opts ...Option) (*Archive, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	// A size the input does not hold would be the format's offsets'
	// undoing (a negative one panicked). An index records the size and
	// digests the last bytes: only the sign is left to check.
	if o.index != nil {
		err = srcsize.Negative(size)
	} else {
		err = srcsize.Check(r, size)
	}
	if err != nil {
		return nil, err
	}
	if o.volOpen != nil {
		return openSet(r, size, o.volName, o.volOpen, nil, o)
	}
	cfg, pw := o.config()
	return openArchive(r, size, o, cfg, pw)
}

func openArchive(r io.ReaderAt, size int64, o *options, cfg *arc.Config, pw *passwords) (res *Archive, err error) {
	gate := newOpenGate(o.ctx)
	if err := gate.err(); err != nil {
		return nil, err
	}
	defer func() {
		var cancelled bool
		if cancelled, err = gate.close(err); cancelled && res != nil {
			res.Close()
			res = nil
		}
	}()
	acct := newAccount(&o.bounds)
	src := r
	r = countReaderAt(gate.readerAt(r), &acct.consumed)
	gate.volumes(cfg)
	countVolumes(cfg, &acct.consumed)
	if o.index != nil {
		a, err := openIndexed(r, src, size, o.index, cfg)
		if err != nil {
			return nil, archiveErr(err)
		}
		if err := admit(a, o); err != nil {
			return nil, err
		}
		sections, err := restoreCheckpoints(a, o.index, o.checkpoints)
		if err != nil {
			a.Close()
			return nil, archiveErr(err)
		}
		return &Archive{a: a, view: engine.View(a), format: o.index.format, opts: o, pw: pw, acct: acct,
			src: src, srcSize: size, sections: sections}, nil
	}
	f, err := detectAt(r, size)
	if err != nil {
		return nil, archiveErr(err)
	}
	a, err := retry(pw, func() (arc.Archive, error) { return f.Open(r, size, cfg) })
	if err != nil {
		return nil, archiveErr(err)
	}
	if err := admit(a, o); err != nil {
		return nil, err
	}
	return &Archive{a: a, view: engine.View(a), format: formatName(a, f), opts: o, pw: pw, acct: acct, src: src, srcSize: size}, nil
}

// admit checks an opened archive's entry count against the limits
// (closing it when over) and gives it the checkpoint policy: the last
// steps of an open, from an index or not.
func admit(a arc.Archive, o *options) error {
	if err := checkEntryCount(a, &o.bounds); err != nil {
		a.Close()
		return archiveErr(err)
	}
	if c, ok := engine.View(a).(engine.Checkpointer); ok {
		c.SetCheckpoints(o.checkpoints)
	}
	return nil
}

// OpenFile opens the archive file name. For a multi-volume set, name is
// the first volume; the others are opened from beside it as needed and
// closed by Close. An error about the archive names the file once:
// "unarc: a.rar: not an archive" (or the volume it is about).
func OpenFile(name string, opts ...Option) (*Archive, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	f, size, err := openOSFile(name)
	if err != nil {
		return nil, namedErr(name, err)
	}
	a, err := openSet(f, size, name, openOSFile, f.(io.Closer), o)
	return a, namedErr(name, err)
}

// OpenFS opens the archive name in fsys; the other volumes of a set are
// found beside it in fsys. Files of fsys that are not io.ReaderAt are
// read through their io.Seeker.
func OpenFS(fsys fs.FS, name string, opts ...Option) (*Archive, error) {
	ra, size, err := openFSFile(fsys, name)
	if err != nil {
		return nil, namedErr(name, err)
	}
	o, err := buildOptions(opts)
	if err != nil {
		if c, ok := ra.(io.Closer); ok {
			c.Close()
		}
		return nil, err
	}
	o.volName = name
	o.volOpen = func(vol string) (io.ReaderAt, int64, error) { return openFSFile(fsys, vol) }
	var c io.Closer
	if cl, ok := ra.(io.Closer); ok {
		c = cl
	}
	a, err := openSet(ra, size, name, o.volOpen, c, o)
	return a, namedErr(name, err)
}

// openOSFile opens name as an *os.File (an io.ReaderAt) with its size.
func openOSFile(name string) (io.ReaderAt, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := statFile(f, name)
	if err != nil {
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// statFile stats an opened archive file, closing it on failure: a
// directory is not an archive (ErrFormat).
func statFile(f fs.File, name string) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &archiveError{name: name, err: fmt.Errorf("%w: it is a directory", errs.ErrFormat)}
	}
	return st, nil
}

// openFSFile opens name in fsys as an io.ReaderAt (closed by its Close).
func openFSFile(fsys fs.FS, name string) (io.ReaderAt, int64, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := statFile(f, name)
	if err != nil {
		return nil, 0, err
	}
	switch rf := f.(type) {
	case interface {
		io.ReaderAt
		io.Closer
	}:
		return rf, st.Size(), nil
	case io.ReadSeekCloser:
		return &seekReaderAt{f: rf}, st.Size(), nil
	}
	f.Close()
	return nil, 0, &archiveError{name: name, err: fmt.Errorf("%w: file is neither an io.ReaderAt nor an io.Seeker", errs.ErrUnsupported)}
}

// seekReaderAt adapts an io.ReadSeeker to io.ReaderAt under a lock.
type seekReaderAt struct {
	mu sync.Mutex
	f  io.ReadSeekCloser
}

func (s *seekReaderAt) ReadAt(p []byte, off int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(s.f, p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF // io.ReaderAt reports a short read at the end as io.EOF
	}
	return n, err
}

func (s *seekReaderAt) Close() error { return s.f.Close() }

// openSet opens first (size bytes, named name) with open finding the
// other volumes; every volume open returns that is an io.Closer, and
// firstCloser, is closed by Archive.Close (or on failure).
func openSet(first io.ReaderAt, size int64, name string, open func(string) (io.ReaderAt, int64, error), firstCloser io.Closer, o *options) (*Archive, error) {
	if fn, ra, n, ok := openFirstSplitPart(name, first, open); ok {
		// A later part of a byte-split set (name.003): the archive starts
		// in name.001, so open the set from there.
		if firstCloser != nil {
			firstCloser.Close()
		}
		firstCloser, _ = ra.(io.Closer)
		first, size, name = ra, n, fn
	}
	var (
		mu      sync.Mutex
		closers []io.Closer
	)
	if firstCloser != nil {
		closers = append(closers, firstCloser)
	}
	closeAll := func() error {
		mu.Lock()
		defer mu.Unlock()
		var first error
		for _, c := range closers {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
		closers = nil
		return first
	}
	tracked := func(vol string) (io.ReaderAt, int64, error) {
		ra, n, err := open(vol)
		if err != nil {
			return nil, 0, err
		}
		if c, ok := ra.(io.Closer); ok {
			mu.Lock()
			closers = append(closers, c)
			mu.Unlock()
		}
		return ra, n, nil
	}
	cfg, pw := o.config()
	cfg.Name = name
	cfg.OpenVolume = tracked
	ra := first
	split, err := splitVolumes(name, first, size, open)
	if err != nil {
		closeAll()
		return nil, err
	}
	if split != nil {
		closers = append(closers, split) // the parts it opened
		// The joined parts are the archive name.001 was cut from; formats
		// must not look for volumes of their own named after .001.
		ra, size = split, split.Size()
		cfg.Name = name[:strings.LastIndexByte(name, '.')]
	}
	a, err := openArchive(ra, size, o, cfg, pw)
	if err != nil {
		closeAll()
		return nil, err
	}
	// Volumes may be opened later (when an entry spans them), so Close
	// reads the list under the same lock.
	a.closeVolumes = closeAll
	return a, nil
}

// Format names the detected format: "zip", "rar", "7z"; "tar", "tar.gz",
// "tar.bz2", "tar.xz", "tar.zst", "tar.lz", "tar.lzma"; and for a single
// compressed file (a one-entry archive) "gzip", "bzip2", "xz", "zstd",
// "lzip", "lzma".
func (a *Archive) Format() string { return a.format }

// Entries lists the archive's entries in stored order. The slice and the
// entries belong to the Archive; do not modify them.
func (a *Archive) Entries() []*Entry { return a.a.Entries() }

// Comment returns the archive comment, if any.
func (a *Archive) Comment() string { return a.a.Comment() }

// OpenEntry returns a reader of e's content (e from Entries). Reading it
// to the end verifies the stored checksum: a mismatch is returned in place
// of io.EOF as an error matching ErrChecksum. Close the reader when done.
func (a *Archive) OpenEntry(e *Entry) (io.ReadCloser, error) {
	return a.openEntry(e, a.acct)
}

// openEntry is OpenEntry charging acct (the archive's account, or that
// of one entry a parallel Extract decodes ahead).
func (a *Archive) openEntry(e *Entry, acct *account) (io.ReadCloser, error) {
	if e == nil {
		return nil, errors.New("unarc: nil entry")
	}
	ents := a.a.Entries()
	if e.Index < 0 || e.Index >= len(ents) || ents[e.Index] != e {
		return nil, fmt.Errorf("unarc: entry %q does not belong to this archive", e.Name)
	}
	if err := acct.exhausted(); err != nil {
		return nil, entryErr(e.Name, err)
	}
	gen := 0
	if a.pw != nil {
		gen = a.pw.generation()
	}
	rc, err := retry(a.pw, func() (io.ReadCloser, error) { return a.a.Open(e.Index) })
	if err != nil {
		return nil, entryErr(e.Name, err)
	}
	if a.pw != nil {
		gen = a.pw.generation()
	}
	er := &entryReader{name: e.Name, pw: a.pw, gen: gen}
	er.lr.reset(rc, rc, e, &a.opts.bounds, acct)
	return er, nil
}

// entryReader is what OpenEntry returns: the limit-checked reader whose
// every error (other than io.EOF) is an *EntryError naming the entry.
type entryReader struct {
	lr   limitReader
	name string
	pw   *passwords
	gen  int // the password generation the entry was opened with
}

func (r *entryReader) fail(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if r.pw != nil && errors.Is(err, ErrPassword) {
		r.pw.forget(r.gen)
	}
	return entryErr(r.name, err)
}

func (r *entryReader) Read(p []byte) (int, error) {
	n, err := r.lr.Read(p)
	return n, r.fail(err)
}

// WriteTo passes the decoder's WriteTo through, so io.Copy moves bytes
// straight from its window.
func (r *entryReader) WriteTo(w io.Writer) (int64, error) {
	n, err := r.lr.WriteTo(w)
	return n, r.fail(err)
}

func (r *entryReader) Close() error { return entryErr(r.name, r.lr.Close()) }

// Close releases the archive and any volume files OpenFile opened.
func (a *Archive) Close() error {
	err := a.a.Close()
	if a.closeVolumes != nil {
		if cerr := a.closeVolumes(); err == nil {
			err = cerr
		}
	}
	return err
}

// Info holds facts about an archive as a whole.
type Info struct {
	// Format names the detected format, as Archive.Format does: "zip",
	// "rar", "7z"; "tar" and the compressed tarballs "tar.gz",
	// "tar.bz2", "tar.xz", "tar.zst", "tar.lz", "tar.lzma"; and, for a
	// single compressed file read as a one-entry archive, "gzip",
	// "bzip2", "xz", "zstd", "lzip", "lzma".
	Format string
	// Solid reports that some entries can only be decoded after the
	// entries before them in the same block (RAR solid archives, 7z solid
	// folders): random access to them costs decoding what precedes them.
	Solid bool
	// Locked reports a RAR archive locked against modification.
	Locked bool
	// Encrypted reports that some entry data (or the listing) is encrypted.
	Encrypted bool
}

// Info returns the archive's facts; it decodes nothing.
func (a *Archive) Info() Info {
	in := Info{Format: a.format}
	if s, ok := a.a.(interface{ IsSolid() bool }); ok && s.IsSolid() {
		in.Solid = true
	}
	if l, ok := a.a.(interface{ Locked() bool }); ok {
		in.Locked = l.Locked()
	}
	for _, e := range a.a.Entries() {
		in.Solid = in.Solid || e.Solid
		in.Encrypted = in.Encrypted || e.Encrypted
	}
	return in
}

// Warnings returns conditions met while reading the archive that are not
// errors of any entry: an archive cut after its last complete entry
// (what precedes it is listed and readable), recovery records, skipped
// file versions, as the format reports them. Nil when there are none.
func (a *Archive) Warnings() []error { return formatWarnings(a.a) }

// formatWarnings asks a format Archive or Reader for its warnings: the
// engine.Warner interface, or a single Warning() error.
func formatWarnings(v any) []error {
	switch w := v.(type) {
	case engine.Warner:
		return w.Warnings()
	case interface{ Warning() error }:
		if err := w.Warning(); err != nil {
			return []error{err}
		}
	}
	return nil
}

// LinkTarget returns the target of a symlink entry. Most formats store it
// in the header and Entry.LinkTarget already holds it; 7z stores it as
// the entry's data, so listing leaves Entry.LinkTarget empty until the
// entry is first read and LinkTarget reads it then (decoding its solid
// folder up to it). For other entries it returns e.LinkTarget.
func (a *Archive) LinkTarget(e *Entry) (string, error) {
	if e == nil || e.Link != LinkSymlink || e.LinkTarget != "" {
		if e == nil {
			return "", errors.New("unarc: nil entry")
		}
		return e.LinkTarget, nil
	}
	if r, ok := a.a.(interface{ LinkTarget(int) (string, error) }); ok {
		t, err := r.LinkTarget(e.Index)
		if err != nil {
			return "", entryErr(e.Name, err)
		}
		return t, nil
	}
	return e.LinkTarget, nil
}
