package rar

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/crc32x"
	"github.com/go-unarc/unarc/internal/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// solidState is the archive's shared decoder and where it stands: after
// entry next-1 of the solid run starting at run was decoded, opening
// entry next continues without decoding anything again.
type solidState struct {
	dec  unpacker
	fam  int
	next int // index the decoder is positioned at; -1 none
	run  int
	gen  int // bumped whenever the decoder moves; stale readers fail
	busy bool

	// The first entry of run whose decoding failed (failErr != nil).
	failRun, failAt int
	failErr         error
}

func (s *solidState) close() {
	if s.dec != nil {
		releaseUnpacker(s.fam, s.dec)
		s.dec = nil
	}
	s.next = -1
}

// entryReader is one opened entry: source -> decryptor -> decoder ->
// verifier, with the decoder shared for solid runs.
type entryReader struct {
	a      *Archive
	idx    int
	parts  partsReader
	lim    io.LimitedReader // stored data: the unpacked size of the (padded) stream
	v      crc32x.Reader
	dec    unpacker // owned (non-shared) decoder, back to Archive.spare on Close
	fam    int
	shared bool // uses a.solid.dec
	gen    int
	guess  bool // wrong password only visible in the data
	done   bool
}

// Open returns a reader of entry i's content; reading it to the end
// verifies the stored CRC32 or BLAKE2sp. In a solid archive the entries
// before i in its solid run are decoded first (once: opening entries in
// order continues the same decoder). Only the last reader opened on a
// solid run can be read.
func (a *Archive) Open(i int) (io.ReadCloser, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.open(i)
}

func (a *Archive) open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(a.files) {
		return nil, fmt.Errorf("rar: entry index %d out of range", i)
	}
	f := a.files[i]
	if f.copyOf >= 0 {
		// A file copy or hard link: its content is the source entry's
		// (unrar writes a copy's content; Open gives the same for links).
		return a.open(f.copyOf)
	}
	if f.e.Link == arc.LinkCopy {
		return nil, errs.Corrupt("%s: file copy of missing entry %s", f.e.Name, f.e.LinkTarget)
	}
	return a.openFile(f, i)
}

func (a *Archive) openFile(f *file, i int) (io.ReadCloser, error) {
	if !entryData(f.e) {
		return noData{}, nil
	}
	if f.split {
		return nil, fmt.Errorf("%w: %s continues in a missing volume", errs.ErrTruncated, f.e.Name)
	}
	if err := a.p.checkSize(f); err != nil {
		return nil, err
	}
	// One small allocation per Open: the reader is not recycled, so a
	// handle used after Close fails instead of reading another entry.
	r := &entryReader{a: a, idx: i}
	r.parts.reset(a.vols, f.parts)
	var crypt *rarcrypto.Reader
	if f.crypt != cryptNone {
		crypt = new(rarcrypto.Reader)
	}
	src, guess, err := a.p.decrypter(f, &r.parts, crypt)
	if err != nil {
		return nil, err
	}
	r.guess = guess
	var out io.Reader
	switch {
	case f.method == 0:
		r.lim = io.LimitedReader{R: src, N: f.e.Size}
		out = &r.lim
		if f.unknown {
			out = src
		}
	case f.method < 0:
		return nil, errs.Unsupported("%s: RAR method byte", f.e.Name)
	default:
		if err := a.p.checkDict(f); err != nil {
			return nil, err
		}
		if (a.p.solid || f.solid) && i >= 0 {
			if err := a.solidSeek(r, f, i, src); err != nil {
				return nil, mapErr(err, guess)
			}
			out = a.solid.dec
		} else {
			fam := family(f.algo)
			d := a.spare[fam]
			delete(a.spare, fam)
			if d == nil {
				if d, err = a.p.newUnpacker(f); err != nil {
					return nil, err
				}
			}
			r.dec, r.fam, out = d, fam, d
			if err := d.reset(src, f.algo, f.dict, f.e.Size, false); err != nil {
				r.close() // a.mu is held by Open
				return nil, mapErr(err, guess)
			}
		}
	}
	verifier(&r.v, f, out)
	return r, nil
}

// solidSeek positions the shared decoder at the start of entry i,
// decoding earlier entries of its run into io.Discard when needed.
func (a *Archive) solidSeek(r *entryReader, f *file, i int, src io.Reader) error {
	s := &a.solid
	// The run starts at the nearest entry at or before i that has packed
	// data and does not continue the previous one.
	run := i
	for a.files[run].solid {
		j := run - 1
		for j >= 0 && (!entryData(a.files[j].e) || a.files[j].method == 0) {
			j--
		}
		if j < 0 {
			break
		}
		run = j
	}
	if s.failErr != nil && s.failRun == run && s.failAt < i {
		// unrar's rule: after a broken entry the rest of a solid stream
		// cannot be decoded. Failing fast also keeps a hostile archive
		// from making every later Open re-decode the whole run.
		return fmt.Errorf("solid predecessor %s: %w", a.files[s.failAt].e.Name, s.failErr)
	}
	from := run
	if s.dec != nil && s.next >= 0 && s.run == run && s.next <= i && s.fam == family(f.algo) {
		from = s.next
	}
	s.gen++
	s.next = -1
	if s.dec == nil || s.fam != family(f.algo) {
		if s.dec != nil {
			s.dec.Close()
		}
		d, err := a.p.newUnpacker(f)
		if err != nil {
			s.dec = nil
			return err
		}
		s.dec, s.fam = d, family(f.algo)
	}
	for j := from; j < i; j++ {
		g := a.files[j]
		if !entryData(g.e) || g.method == 0 || g.copyOf >= 0 {
			continue
		}
		if g.split {
			return fmt.Errorf("%w: %s continues in a missing volume", errs.ErrTruncated, g.e.Name)
		}
		if err := a.p.checkDict(g); err != nil {
			return err
		}
		var pr partsReader
		var cr rarcrypto.Reader
		pr.reset(a.vols, g.parts)
		gsrc, guess, err := a.p.decrypter(g, &pr, &cr)
		if err != nil {
			return fmt.Errorf("solid predecessor: %w", err)
		}
		if err := s.dec.reset(gsrc, g.algo, g.dict, g.e.Size, j != run); err != nil {
			return mapErr(err, guess)
		}
		var v crc32x.Reader
		verifier(&v, g, s.dec)
		if _, err := v.WriteTo(io.Discard); err != nil {
			err = mapErr(err, guess)
			s.failRun, s.failAt, s.failErr = run, j, err
			return fmt.Errorf("solid predecessor %s: %w", g.e.Name, err)
		}
	}
	if err := s.dec.reset(src, f.algo, f.dict, f.e.Size, i != run); err != nil {
		return err
	}
	s.run = run
	r.shared, r.gen = true, s.gen
	return nil
}

var errClosed = errors.New("rar: read after Close")

// Read reads decoded, verified content.
func (r *entryReader) Read(p []byte) (int, error) {
	if r.a == nil {
		return 0, errClosed
	}
	if r.shared {
		// Solid entries share the archive's decoder and solid state.
		r.a.mu.Lock()
		defer r.a.mu.Unlock()
	}
	if r.shared && r.a.solid.gen != r.gen {
		return 0, fmt.Errorf("rar: solid entry reader superseded by a later Open")
	}
	n, err := r.v.Read(p)
	if err != nil {
		r.finish(err)
		err = mapErr(err, r.guess)
	}
	return n, err
}

// WriteTo writes the content to w, straight from the decoder's window
// when it has one.
func (r *entryReader) WriteTo(w io.Writer) (int64, error) {
	if r.a == nil {
		return 0, errClosed
	}
	if r.shared {
		r.a.mu.Lock()
		defer r.a.mu.Unlock()
	}
	if r.shared && r.a.solid.gen != r.gen {
		return 0, fmt.Errorf("rar: solid entry reader superseded by a later Open")
	}
	n, err := r.v.WriteTo(w)
	if err == nil {
		r.finish(io.EOF)
	} else {
		r.finish(err)
	}
	return n, mapErr(err, r.guess)
}

func (r *entryReader) finish(err error) {
	if r.done {
		return
	}
	r.done = true
	if r.shared {
		s := &r.a.solid
		if err == io.EOF {
			s.next = r.idx + 1
		} else {
			s.next = -1
			if s.failErr == nil && !errors.Is(err, errs.ErrPassword) && !errors.Is(err, errs.ErrPasswordRequired) {
				s.failRun, s.failAt, s.failErr = s.run, r.idx, err
			}
		}
	}
}

// Close releases the entry's decoder.
func (r *entryReader) Close() error {
	if r.a == nil {
		return nil // closed before
	}
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	return r.close()
}

// close is Close with a.mu held.
func (r *entryReader) close() error {
	if r.a == nil {
		return nil
	}
	if r.dec != nil {
		// Keep the decoder (and its tables) for the next entry.
		if old := r.a.spare[r.fam]; old != nil {
			old.Close()
		}
		r.a.spare[r.fam] = r.dec
		r.dec = nil
	}
	if r.shared && !r.done && r.a.solid.gen == r.gen {
		r.a.solid.next = -1
	}
	r.done = true
	r.a = nil
	return nil
}
