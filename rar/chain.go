package rar

import (
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// The data chain of one opened entry (source -> decryptor -> decoder ->
// verifier), its reads and its end: entryReader.

// entryReader is one opened entry: source -> decryptor -> decoder ->
// verifier. Non-solid entries own their decoder; solid ones borrow a slot.
type entryReader struct {
	a     *Archive
	f     *file
	idx   int // file index
	run   int // solid: first entry of the run
	solid bool
	parts partsReader
	crypt *rarcrypto.Reader
	lim   io.LimitedReader // stored data: the unpacked size of the (padded) stream
	v     crc32x.Reader
	mac   macCRC     // the RAR5 MAC-converted CRC check, when v uses it
	dec   unpacker   // owned (non-solid) decoder, back to Archive.spare on Close
	slot  *solidSlot // solid: the slot positioned in this entry, or nil
	pos   int64      // bytes returned so far
	want  int64      // decoded size the header declares; -1 unknown
	guess bool       // wrong password only visible in the data
	done  bool
	err   error  // final result once done (io.EOF: complete and verified)
	tee   []byte // the content so far, kept for file copies of this entry
	teeOK bool
	seek  bool        // opened by OpenAt: its decoder takes checkpoints (seekcp.go)
	marks cipherMarks // the RAR 1.5/2.0 decryptor of the data (seekcp.go), or nil
}

// chain builds r's data chain from the start of its entry, decoding with
// d (nil: stored); solid continues d's window from the previous entry.
func (a *Archive) chain(r *entryReader, d unpacker, solid bool) error {
	f := r.f
	r.parts.reset(a.vols, f.parts)
	src, guess, err := a.keys.decrypter(f, &r.parts, r.crypt)
	if err != nil {
		return err
	}
	r.guess = guess
	r.marks, _ = src.(cipherMarks)
	var out io.Reader
	if d == nil {
		r.lim = io.LimitedReader{R: src, N: f.e.Size}
		out = &r.lim
		if f.unknown {
			out = src
		}
	} else {
		n := a.entryWorkers()
		if r.seek {
			n = 1 // checkpoints are taken by the sequential decoder
		}
		setWorkers(d, n, f.dict, a.limits.mem)
		if err := d.reset(src, f.algo, f.dict, f.e.Size, solid); err != nil {
			return err
		}
		if r.seek {
			a.watch(d, r.idx, f, solid, r.marks)
		}
		out = d
		r.want = declaredSize(f)
	}
	verifier(&r.v, &r.mac, f, out)
	return nil
}

// Read reads decoded, verified content.
func (r *entryReader) Read(p []byte) (int, error) {
	if r.solid && r.a != nil {
		n, err := r.readSolid(p, nil)
		return int(n), err
	}
	if _, err := r.ready(); err != nil {
		return 0, err
	}
	return r.read(p)
}

// ready checks that r and its Archive are still open. For a solid entry
// it locks the Archive (reporting locked: the caller unlocks) and
// attaches r to a positioned slot.
func (r *entryReader) ready() (locked bool, err error) {
	a := r.a
	if a == nil {
		return false, errReaderClosed
	}
	if !r.solid {
		if a.closed.Load() {
			return false, errArchiveClosed
		}
		return false, nil
	}
	a.mu.Lock()
	return true, r.attach()
}

func (r *entryReader) read(p []byte) (int, error) {
	if r.done {
		return 0, r.err
	}
	n, err := r.v.Read(p)
	r.pos += int64(n)
	if r.teeOK {
		r.tee = append(r.tee, p[:n]...)
	}
	if err != nil {
		err = r.finish(err)
	}
	return n, err
}

// WriteTo writes the content to w, straight from the decoder's window
// when it has one.
func (r *entryReader) WriteTo(w io.Writer) (int64, error) {
	if r.solid && r.a != nil {
		return r.readSolid(nil, w)
	}
	if _, err := r.ready(); err != nil {
		return 0, err
	}
	if r.done {
		if r.err == io.EOF {
			return 0, nil
		}
		return 0, r.err
	}
	if r.teeOK {
		w = teeWriter{r, w}
	}
	n, err := r.v.WriteTo(w)
	r.pos += n
	if err == nil {
		err = io.EOF
	}
	if err = r.finish(err); err == io.EOF {
		err = nil
	}
	return n, err
}

// finish ends the entry with err (io.EOF: all read and verified), checks
// the decoded size, frees a solid slot for the next entry and keeps the
// content for file copies. It returns the error to report.
func (r *entryReader) finish(err error) error {
	if r.done {
		return r.err
	}
	if err == io.EOF && r.want >= 0 && r.pos != r.want {
		err = sizeError(r.pos, r.want)
	}
	err = mapErr(err, r.guess)
	r.done, r.err = true, err
	if sl := r.slot; sl != nil {
		sl.holder, r.slot = nil, nil
		sl.next = -1
		s := &r.a.solid
		if err == io.EOF {
			sl.next = r.idx + 1
		} else if s.failErr == nil && dataError(err) {
			s.failRun, s.failAt, s.failErr = r.run, r.idx, err
		}
	}
	if r.teeOK {
		if err == io.EOF {
			r.a.keep(r.idx, r.tee)
		}
		r.tee, r.teeOK = nil, false
	}
	return err
}

// dataError reports whether err says the entry's data is bad (and not,
// say, that the caller's writer failed or a password was wrong).
func dataError(err error) bool {
	return errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrChecksum) ||
		errors.Is(err, errs.ErrTruncated) || errors.Is(err, errs.ErrUnsupported) ||
		errors.Is(err, errs.ErrLimit)
}

// close releases the entry's decoder (reader.Close), with a.mu held.
func (r *entryReader) close() error {
	a := r.a
	if a == nil {
		return nil
	}
	if sl := r.slot; sl != nil {
		// Left inside the entry: the slot is not positioned anywhere.
		sl.holder, sl.next, r.slot = nil, -1, nil
	}
	if r.dec != nil {
		if a.closed.Load() {
			r.dec.release()
		} else {
			// Keep the decoder (and its tables) for the next entry.
			sp := a.spareOf(r.dec.family())
			if *sp != nil {
				(*sp).release()
			}
			*sp = r.dec
		}
		r.dec = nil
	}
	if !r.done {
		r.done, r.err = true, errReaderClosed
	}
	// Nothing reads through the decryptor now: the decoder is reset
	// with a new source before its next use.
	putCrypt(&r.crypt)
	r.tee, r.teeOK = nil, false
	r.a = nil
	return nil
}

// cryptReaders keeps AES-CBC decryptors (4 KiB buffer and expanded key)
// between entries.
var cryptReaders pool.Of[rarcrypto.Reader]

// putCrypt releases *c, if any, to cryptReaders: nothing may read
// through it any more.
func putCrypt(c **rarcrypto.Reader) {
	if *c != nil {
		(*c).Release()
		cryptReaders.Put(*c)
		*c = nil
	}
}

// readable is the error of a reader of Archive a used now: a is nil once
// the reader is closed.
func readable(a *Archive) error {
	if a == nil {
		return errReaderClosed
	}
	if a.closed.Load() {
		return errArchiveClosed
	}
	return nil
}
