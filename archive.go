package unarc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/go-unarc/unarc/internal/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// Archive gives random access to the entries of an archive held in an
// io.ReaderAt. It is safe to open several entries concurrently; whether
// that decodes in parallel depends on the format (entries of one solid
// block share a decoder).
//
// Archive implements fs.FS over its entries (see Open).
type Archive struct {
	a            arc.Archive
	format       string
	opts         *options
	acct         *account // output and input of every entry reader
	closeVolumes func() error

	fsOnce sync.Once
	tree   *fsTree
}

// Open opens the archive in r (size bytes). The format is detected
// from content, including archives behind an SFX stub or other prepended
// data.
func Open(r io.ReaderAt, size int64, opts ...Option) (*Archive, error) {
	o := buildOptions(opts)
	return openArchive(r, size, o, o.config())
}

func openArchive(r io.ReaderAt, size int64, o *options, cfg *arc.Config) (*Archive, error) {
	acct := newAccount(&o.limits)
	r = countReaderAt(r, &acct.consumed)
	countVolumes(cfg, &acct.consumed)
	f, err := detectAt(r, size)
	if err != nil {
		return nil, err
	}
	a, err := f.Open(r, size, cfg)
	if err != nil {
		return nil, err
	}
	if err := checkEntryCount(a, &o.limits); err != nil {
		a.Close()
		return nil, err
	}
	return &Archive{a: a, format: f.Name, opts: o, acct: acct}, nil
}

// OpenFile opens the archive file name. For a multi-volume set, name is
// the first volume; the others are opened from beside it as needed and
// closed by Close.
func OpenFile(name string, opts ...Option) (*Archive, error) {
	o := buildOptions(opts)
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is a directory", errs.ErrFormat, name)
	}
	var (
		mu      sync.Mutex
		closers = []io.Closer{f}
	)
	cfg := o.config()
	cfg.Name = name
	cfg.OpenVolume = func(vol string) (io.ReaderAt, int64, error) {
		vf, err := os.Open(vol)
		if err != nil {
			return nil, 0, err
		}
		vst, err := vf.Stat()
		if err != nil {
			vf.Close()
			return nil, 0, err
		}
		mu.Lock()
		closers = append(closers, vf)
		mu.Unlock()
		return vf, vst.Size(), nil
	}
	var ra io.ReaderAt = f
	size := st.Size()
	split, more, err := splitVolumes(name, f, size)
	closers = append(closers, more...)
	if err != nil {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	if split != nil {
		// The joined parts are the archive name.001 was cut from; formats
		// must not look for volumes of their own named after .001.
		ra, size = split, split.Size()
		cfg.Name = name[:strings.LastIndexByte(name, '.')]
	}
	a, err := openArchive(ra, size, o, cfg)
	if err != nil {
		mu.Lock()
		for _, c := range closers {
			c.Close()
		}
		mu.Unlock()
		return nil, err
	}
	// Volumes may be opened later (when an entry spans them), so Close
	// reads the list under the same lock.
	a.closeVolumes = func() error {
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
	return a, nil
}

// Format names the detected format: "zip", "rar", "7z".
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
	if e == nil {
		return nil, errors.New("unarc: nil entry")
	}
	ents := a.a.Entries()
	if e.Index < 0 || e.Index >= len(ents) || ents[e.Index] != e {
		return nil, fmt.Errorf("unarc: entry %q does not belong to this archive", e.Name)
	}
	rc, err := a.a.Open(e.Index)
	if err != nil {
		return nil, entryErr(e.Name, err)
	}
	return newLimitReader(rc, e, &a.opts.limits, a.acct), nil
}

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
