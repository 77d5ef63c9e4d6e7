package rar

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// OpenAt serves engine.EntrySeeker. A stored entry (-m0) is read from
// off directly, across volumes; encrypted with AES-CBC (RAR5, RAR 3.x)
// it is deciphered from the block of off, whose IV is the ciphertext
// block before it (the entry's IV for block 0). The CRC or BLAKE2sp
// cannot be checked then. Every other entry (compressed, solid, the
// stream ciphers of RAR 1.5-2.0, file copies) opens from the start as
// Open does, returning start 0, except compressed entries (solid or not;
// RAR5 and RAR 2.9 plain or AES, RAR 2.0 and 1.5 plain) with a
// checkpoint of their own at or before off: they resume from it
// (seekcp.go). Entries without one decode again from the start of the
// entry or solid run.
func (c *capable) OpenAt(i int, off int64) (io.ReadCloser, int64, error) {
	a := (*Archive)(c)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return nil, 0, errArchiveClosed
	}
	if i < 0 || i >= len(a.entries) {
		return nil, 0, fmt.Errorf("rar: entry index %d out of range", i)
	}
	fi := i
	if a.vis != nil {
		fi = a.vis[i]
	}
	f := a.files[fi]
	cp, ok, err := a.findCP(fi, f, off)
	if err != nil {
		return nil, 0, err
	}
	if ok {
		rc, err := a.resume(fi, f, cp, true)
		return rc, cp.Out, err
	}
	if off <= 0 || !a.directAt(f) {
		rc, err := a.open(fi)
		if h, ok := rc.(*reader); ok && err == nil {
			er := h.r
			// A seekable reader: its decoder takes checkpoints (a
			// solid one when it is positioned, in chain).
			er.seek = true
			if er.dec != nil {
				a.watch(er.dec, er.idx, er.f, false, er.marks)
			}
		}
		return rc, 0, err
	}
	if err := a.limits.checkSize(f); err != nil {
		return nil, 0, err
	}
	off = min(off, f.e.Size)
	r := &atReader{a: a}
	r.parts.reset(a.vols, f.parts)
	if f.crypt == cryptNone {
		if err := r.parts.seek(off); err != nil {
			return nil, 0, err
		}
		r.lim = io.LimitedReader{R: &r.parts, N: f.e.Size - off}
		return r, off, nil
	}
	key, iv0, _, err := a.keys.cbcKey(f)
	if err != nil {
		return nil, 0, err
	}
	if err := r.cbcFrom(off, key, iv0); err != nil {
		r.Close()
		return nil, 0, err
	}
	r.lim = io.LimitedReader{R: r.crypt, N: f.e.Size - off}
	return r, off, nil
}

// StartAt serves engine.EntrySeeker: where OpenAt(i, off) would start.
func (c *capable) StartAt(i int, off int64) int64 {
	a := (*Archive)(c)
	a.mu.Lock()
	defer a.mu.Unlock()
	if i < 0 || i >= len(a.entries) || off <= 0 {
		return 0
	}
	if a.vis != nil {
		i = a.vis[i]
	}
	if f := a.files[i]; a.directAt(f) {
		return min(off, f.e.Size)
	}
	if cp, ok := a.peekCP(i, a.files[i], off); ok {
		return cp.Out
	}
	return 0
}

// directAt reports whether stored entry f is read from an offset directly.
func (a *Archive) directAt(f *file) bool {
	return f.method == 0 && f.copyOf < 0 && !f.unknown && f.missing == nil &&
		f.broken == nil && !f.split && entryData(f.e) && f.e.Size >= 0 &&
		(f.crypt == cryptNone || f.crypt == cryptRAR5 || f.crypt == cryptRAR3) &&
		!(f.version == 5 && (f.e.Link != 0))
}

// seek positions r at offset x of the entry's packed data.
func (r *partsReader) seek(x int64) error {
	r.i, r.open = 0, false
	for r.i < len(r.parts) {
		pt := r.parts[r.i]
		r.i++
		if x < pt.size {
			v := r.vols[pt.vol]
			if pt.off+pt.size > v.size {
				return errDataCut
			}
			r.sr = *io.NewSectionReader(v.ra, pt.off+x, pt.size-x)
			r.open = true
			return nil
		}
		x -= pt.size
	}
	if x > 0 {
		return errs.Corrupt("seek %d bytes past the entry's packed data", x)
	}
	return nil
}

// atReader reads an entry from an offset (OpenAt): a stored one directly
// (dec nil), a compressed one from a checkpoint with a decoder it owns
// (resume, seekcp.go).
type atReader struct {
	a     *Archive
	parts partsReader
	crypt *rarcrypto.Reader
	dec   unpacker
	lim   io.LimitedReader
	guess bool
}

func (r *atReader) Read(p []byte) (int, error) {
	if err := readable(r.a); err != nil {
		return 0, err
	}
	if r.lim.N <= 0 {
		return 0, io.EOF
	}
	n, err := r.lim.Read(p)
	switch {
	case r.dec != nil:
		if err != nil && err != io.EOF {
			err = mapErr(err, r.guess)
		}
	case err == io.EOF && r.lim.N > 0:
		err = errs.Truncated("RAR stored data")
	case err == io.ErrUnexpectedEOF:
		err = errs.Truncated("RAR encrypted data")
	}
	return n, err
}

func (r *atReader) Close() error {
	if r.dec != nil {
		r.dec.release()
		r.dec = nil
	}
	putCrypt(&r.crypt)
	r.a = nil
	return nil
}

// cbcFrom makes r read the entry's AES-CBC data from byte at on: the
// decryptor restarts at at's block, whose IV is the ciphertext block
// before it (iv0 for block 0), and drops the bytes of the block before
// at. RAR5's AES-256 and RAR 3.x's AES-128 alike.
func (r *atReader) cbcFrom(at int64, key, iv0 []byte) error {
	var iv [16]byte
	copy(iv[:], iv0)
	blk := at &^ 15
	if err := r.parts.seek(max(blk-16, 0)); err != nil {
		return err
	}
	if blk > 0 {
		if _, err := io.ReadFull(&r.parts, iv[:]); err != nil {
			return errs.EOF(err, "RAR encrypted data")
		}
	}
	r.crypt = cryptReaders.Get()
	if err := r.crypt.Reset(&r.parts, key, iv[:]); err != nil {
		return err
	}
	if drop := at - blk; drop > 0 {
		var b [16]byte
		if _, err := io.ReadFull(r.crypt, b[:drop]); err != nil {
			return mapErr(errs.EOF(err, "RAR encrypted data"), r.guess)
		}
	}
	return nil
}
