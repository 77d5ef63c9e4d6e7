package rar

import (
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// Opening an entry: Archive.Open picks the reader a file needs (a file
// copy's source, a RAR5 link target, stored, packed, solid) and hands
// out the handle. The reader chain is chain.go's, the solid decoders
// solid.go's, the file-copy content copies.go's.

// errArchiveClosed is returned by Open and by readers after Archive.Close.
var errArchiveClosed = fmt.Errorf("rar: archive closed: %w", fs.ErrClosed)

// errReaderClosed is returned by a reader used after its own Close.
var errReaderClosed = fmt.Errorf("rar: read after Close: %w", fs.ErrClosed)

// Open returns a reader of entry i's content; reading it to the end
// verifies the stored CRC32 or BLAKE2sp and the declared size. Readers may
// be used from different goroutines, and any number may be open at once:
// in a solid archive each one decodes the solid stream up to its entry
// with a decoder of its own or one it borrows in turn (see "Solid
// archives" on Archive); opening entries in order decodes the stream once.
// After Close every reader fails with an error matching fs.ErrClosed.
func (a *Archive) Open(i int) (io.ReadCloser, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return nil, errArchiveClosed
	}
	if i < 0 || i >= len(a.entries) {
		return nil, fmt.Errorf("rar: entry index %d out of range", i)
	}
	if a.vis != nil {
		i = a.vis[i]
	}
	return a.open(i)
}

// open opens file index i with a.mu held.
func (a *Archive) open(i int) (io.ReadCloser, error) {
	f := a.files[i]
	if f.copyOf >= 0 {
		// A file copy or hard link: its content is the source entry's
		// (unrar writes a copy's content; Open gives the same for links).
		if r := a.cached(f.copyOf); r != nil {
			return r, nil
		}
		return a.openFile(a.files[f.copyOf], f.copyOf)
	}
	if f.e.Link == arc.LinkCopy {
		return nil, errs.Corrupt("file copy of missing entry %q", f.e.LinkTarget)
	}
	if f.version == 5 && (f.e.Link == arc.LinkSymlink || f.e.Link == arc.LinkJunction) {
		// RAR5 keeps the target in the header, not as data; reading the
		// entry gives it, as ZIP, 7z and RAR4 do (Size is its length).
		return &memReader{a: a, b: []byte(f.e.LinkTarget)}, nil
	}
	return a.openFile(f, i)
}

func (a *Archive) openFile(f *file, i int) (io.ReadCloser, error) {
	if f.missing != nil {
		return nil, f.missing
	}
	if f.broken != nil {
		return nil, f.broken
	}
	if !entryData(f.e) {
		return noData{}, nil
	}
	if f.split {
		return nil, fmt.Errorf("%w: the entry continues in a missing volume", errs.ErrTruncated)
	}
	if err := a.limits.checkSize(f); err != nil {
		return nil, err
	}
	r := a.newReader(f, i)
	if f.crypt != cryptNone {
		r.crypt = cryptReaders.Get()
	}
	if f.copied && f.e.Size >= 0 && f.e.Size <= a.cacheMax {
		// Grown as data arrives: the declared size is not trusted.
		r.tee, r.teeOK = make([]byte, 0, min(f.e.Size, 64<<10)), true
	}
	switch {
	case f.method < 0:
		return nil, errs.Unsupported("RAR method byte")
	case f.method > 0:
		if err := a.limits.checkDict(f); err != nil {
			return nil, err
		}
	}
	if f.method > 0 && (a.p.main.solid || f.solid) {
		// The decoder is positioned at the first Read, so opening the
		// next entry before finishing this one costs nothing; what can
		// be checked without decoding is checked now.
		r.solid = true
		r.run = a.runStart(i)
		if s := &a.solid; s.failErr != nil && s.failRun == r.run && s.failAt < i {
			return nil, fmt.Errorf("solid predecessor %s: %w", a.files[s.failAt].e.Name, s.failErr)
		}
		if _, _, err := a.keys.decrypter(f, &r.parts, r.crypt); err != nil {
			return nil, err
		}
		if familyOf(f.algo) == nil {
			return nil, unknownAlgo(f)
		}
		return &reader{r}, nil
	}
	if f.method == 0 {
		if err := a.chain(r, nil, false); err != nil {
			return nil, err
		}
		return &reader{r}, nil
	}
	var d unpacker
	if fam := familyOf(f.algo); fam != nil {
		d = *a.spareOf(fam)
		*a.spareOf(fam) = nil
	}
	if d == nil {
		var err error
		if d, err = newUnpacker(f, a.limits.mem); err != nil {
			return nil, err
		}
	}
	r.dec = d
	if err := a.chain(r, d, false); err != nil {
		r.close() // a.mu is held by Open
		return nil, mapErr(err, r.guess)
	}
	return &reader{r}, nil
}

// newReader returns the entryReader for file i: the one the last closed
// handle left (a.idle) or a new one. With a.mu held.
func (a *Archive) newReader(f *file, i int) *entryReader {
	r := a.idle
	a.idle = nil
	if r == nil {
		r = new(entryReader)
	}
	*r = entryReader{a: a, f: f, idx: i, want: -1, mac: macCRC{b2: r.mac.b2}}
	return r
}

// reader is what Open returns for an entry with data: a handle on an
// entryReader. Close detaches it, and the entryReader (about 500 bytes
// with its verifier and BLAKE2sp state) serves the Archive's next entry,
// while the stale handle fails instead of reading another entry.
type reader struct{ r *entryReader }

func (h *reader) Read(p []byte) (int, error) {
	if h.r == nil {
		return 0, errReaderClosed
	}
	return h.r.Read(p)
}

func (h *reader) WriteTo(w io.Writer) (int64, error) {
	if h.r == nil {
		return 0, errReaderClosed
	}
	return h.r.WriteTo(w)
}

func (h *reader) Close() error {
	r := h.r
	if r == nil {
		return nil // closed before
	}
	h.r = nil
	a := r.a
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	err := r.close()
	if !a.closed.Load() {
		*r = entryReader{mac: macCRC{b2: r.mac.b2}} // drop what the entry referenced
		a.idle = r
	}
	return err
}

// spareOf is the slot of a.spare for decoder family fam (a.mu held).
func (a *Archive) spareOf(fam *family) *unpacker {
	if a.spare == nil {
		a.spare = make([]unpacker, len(families))
	}
	return &a.spare[fam.id]
}

// declaredSize is the size a compressed entry's decoded data must have
// to pass: its declared size, unless the size is unknown or a stored
// checksum covers the data. A stream that ends (by its own end-of-data
// mark) before the declared size and matches its checksum is accepted,
// as unrar does (the corpus holds such archives); without a checksum the
// size is all there is to tell a cut-short entry from a good one.
func declaredSize(f *file) int64 {
	if f.unknown || f.hasCRC || f.blake != nil {
		return -1
	}
	return f.e.Size
}

// redecoded counts the solid predecessors decoded to position a slot
// (tests check that reading in order decodes none).
var redecoded atomic.Int64

// sizeError reports a decoded stream that ends at n of the declared size
// bytes: the decoder reached its end-of-data mark early (a truncated input
// is reported by the decoder itself as errs.ErrTruncated).
func sizeError(n, size int64) error {
	return errs.Corrupt("data decodes to %d of the declared %d bytes", n, size)
}
