package rar

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
	"github.com/go-unarc/unarc/rar/internal/unpack50"
)

// maxSolidSlots bounds the decoders one solid Archive keeps.
const maxSolidSlots = 32

// slotOverhead is what a decoder costs beyond its window (tables, input
// and filter buffers), charged against Limits.MaxMemory per slot.
const slotOverhead = 1 << 20

// solidSlot is one decoder of a solid archive and where it stands.
type solidSlot struct {
	dec    unpacker
	fam    int
	run    int          // first entry of the solid run the decoder is in
	next   int          // idle: the entry it is positioned at; -1 none
	holder *entryReader // the reader whose entry it is in, or nil (idle)
	charge int64        // memory counted against Limits.MaxMemory
	used   uint64       // last use, for taking the least recently used
	busy   bool         // its holder is decoding with it, without a.mu
}

// solidState is an Archive's solid decoders.
type solidState struct {
	slots   []*solidSlot
	charged int64
	tick    uint64
	idle    sync.Cond // signalled when a slot stops being busy (L: Archive.mu)
	busy    int       // slots busy now

	// The first entry of run whose decoding failed (failErr != nil).
	failRun, failAt int
	failErr         error
}

// close releases every slot: readers that held one fail on their next
// Read (the Archive is closed), so no decoder is shared with another
// archive through the pool while a reader can still use it.
func (s *solidState) close() {
	for _, sl := range s.slots {
		if sl.holder != nil {
			sl.holder.slot = nil
			sl.holder = nil
		}
		releaseUnpacker(sl.fam, sl.dec)
	}
	s.slots, s.charged = nil, 0
}

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
	mac   macCRC   // the RAR5 MAC-converted CRC check, when v uses it
	dec   unpacker // owned (non-solid) decoder, back to Archive.spare on Close
	fam   int
	slot  *solidSlot // solid: the slot positioned in this entry, or nil
	pos   int64      // bytes returned so far
	want  int64      // decoded size the header declares; -1 unknown
	guess bool       // wrong password only visible in the data
	done  bool
	err   error  // final result once done (io.EOF: complete and verified)
	tee   []byte // the content so far, kept for file copies of this entry
	teeOK bool
	seek  bool        // opened by OpenAt: takes RAR5 checkpoints (seek5.go)
	marks cipherMarks // the RAR 1.5/2.0 decryptor of the data (seekcp.go), or nil
}

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
	if err := a.p.checkSize(f); err != nil {
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
		if err := a.p.checkDict(f); err != nil {
			return nil, err
		}
	}
	if f.method > 0 && (a.p.solid || f.solid) {
		// The decoder is positioned at the first Read, so opening the
		// next entry before finishing this one costs nothing; what can
		// be checked without decoding is checked now.
		r.solid = true
		r.run = a.runStart(i)
		if s := &a.solid; s.failErr != nil && s.failRun == r.run && s.failAt < i {
			return nil, fmt.Errorf("solid predecessor %s: %w", a.files[s.failAt].e.Name, s.failErr)
		}
		if _, _, err := a.p.decrypter(f, &r.parts, r.crypt); err != nil {
			return nil, err
		}
		if unpackers[family(f.algo)] == nil {
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
	fam := family(f.algo)
	d := *a.spareOf(fam)
	*a.spareOf(fam) = nil
	if d == nil {
		var err error
		if d, err = a.p.newUnpacker(f); err != nil {
			return nil, err
		}
	}
	r.dec, r.fam = d, fam
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

// spareOf is the slot of a.spare for decoder family fam.
func (a *Archive) spareOf(fam int) *unpacker {
	switch fam {
	case fam50:
		return &a.spare[0]
	case fam29:
		return &a.spare[1]
	case fam20:
		return &a.spare[2]
	}
	return &a.spare[3]
}

// chain builds r's data chain from the start of its entry, decoding with
// d (nil: stored); solid continues d's window from the previous entry.
func (a *Archive) chain(r *entryReader, d unpacker, solid bool) error {
	f := r.f
	r.parts.reset(a.vols, f.parts)
	src, guess, err := a.p.decrypter(f, &r.parts, r.crypt)
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
		setWorkers(d, n, f.dict, a.p.memMax)
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

// runStart returns the first entry of the solid run holding entry i: the
// nearest entry at or before i that has packed data and does not continue
// the previous one.
func (a *Archive) runStart(i int) int {
	run := i
	for a.files[run].solid {
		j := run - 1
		for j >= 0 && (!entryData(a.files[j].e) || a.files[j].method == 0 || a.files[j].copyOf >= 0) {
			j--
		}
		if j < 0 {
			break
		}
		run = j
	}
	return run
}

// acquire picks the slot r will decode with (see "Solid archives").
func (a *Archive) acquire(r *entryReader) (*solidSlot, error) {
	s := &a.solid
	fam := family(r.f.algo)
	var best, free, idle *solidSlot
	for _, sl := range s.slots {
		if sl.holder != nil {
			continue
		}
		if sl.fam == fam && sl.run == r.run && sl.next >= 0 && sl.next <= r.idx && (best == nil || sl.next > best.next) {
			best = sl
		}
		if sl.next < 0 && (free == nil || free.fam != fam) {
			free = sl
		}
		if idle == nil || idle.used > sl.used {
			idle = sl
		}
	}
	if best != nil {
		return best, nil
	}
	if free != nil && free.fam == fam {
		return free, nil
	}
	charge := min(r.f.dict, a.unpacked) + slotOverhead + unpack50.PipelineMemory(a.entryWorkers())
	// The kept copy content has its share of MaxMemory; the slots the rest.
	if free == nil && (len(s.slots) == 0 || len(s.slots) < maxSolidSlots && s.charged+charge <= a.p.memMax-a.cacheMax) {
		d, err := a.p.newUnpacker(r.f)
		if err != nil {
			return nil, err
		}
		sl := &solidSlot{dec: d, fam: fam, next: -1, charge: charge}
		s.slots = append(s.slots, sl)
		s.charged += charge
		return sl, nil
	}
	sl := free
	if sl == nil {
		sl = idle
	}
	if sl == nil {
		// Every slot is held: take the least recently used one that is
		// not decoding now. Its reader will position again when it
		// next reads.
		for _, x := range s.slots {
			if x.holder != r && !x.busy && (sl == nil || x.used < sl.used) {
				sl = x
			}
		}
		if sl == nil {
			return nil, nil // all busy: the caller waits
		}
		sl.holder.slot = nil
		sl.holder = nil
	}
	sl.next = -1
	if sl.fam != fam {
		d, err := a.p.newUnpacker(r.f)
		if err != nil {
			return nil, err
		}
		releaseUnpacker(sl.fam, sl.dec)
		sl.dec, sl.fam = d, fam
	}
	return sl, nil
}

// position makes sl decode r's entry from r.pos on, decoding the entries
// of the run before it (into io.Discard, verified) when needed.
func (a *Archive) position(r *entryReader, sl *solidSlot) error {
	s := &a.solid
	if s.failErr != nil && s.failRun == r.run && s.failAt < r.idx {
		// unrar's rule: after a broken entry the rest of a solid stream
		// cannot be decoded. Failing fast also keeps a hostile archive
		// from making every later Open re-decode the whole run.
		return fmt.Errorf("solid predecessor %s: %w", a.files[s.failAt].e.Name, s.failErr)
	}
	from := r.run
	if sl.next >= 0 && sl.run == r.run && sl.next <= r.idx {
		from = sl.next
	}
	sl.next, sl.run = -1, r.run
	setWorkers(sl.dec, a.entryWorkers(), r.f.dict, a.p.memMax)
	var cr *rarcrypto.Reader
	for j := from; j < r.idx; j++ {
		g := a.files[j]
		if !entryData(g.e) || g.method == 0 || g.copyOf >= 0 {
			continue
		}
		if g.missing != nil {
			return g.missing
		}
		if g.broken != nil {
			return fmt.Errorf("solid predecessor %s: %w", g.e.Name, g.broken)
		}
		if g.split {
			return fmt.Errorf("%w: solid predecessor %s continues in a missing volume", errs.ErrTruncated, g.e.Name)
		}
		if err := a.p.checkDict(g); err != nil {
			return err
		}
		var pr partsReader
		if cr == nil {
			// One decryptor serves every predecessor in turn.
			cr = cryptReaders.Get()
			defer func() { cr.Release(); cryptReaders.Put(cr) }()
		}
		pr.reset(a.vols, g.parts)
		gsrc, guess, err := a.p.decrypter(g, &pr, cr)
		if err != nil {
			return fmt.Errorf("solid predecessor: %w", err)
		}
		if err := sl.dec.reset(gsrc, g.algo, g.dict, g.e.Size, j != r.run); err != nil {
			return mapErr(err, guess)
		}
		redecoded.Add(1)
		var v crc32x.Reader
		var mac macCRC
		verifier(&v, &mac, g, sl.dec)
		n, err := v.WriteTo(io.Discard)
		if want := declaredSize(g); err == nil && want >= 0 && n != want {
			err = sizeError(n, g.e.Size)
		}
		if err != nil {
			err = mapErr(err, guess)
			s.failRun, s.failAt, s.failErr = r.run, j, err
			return fmt.Errorf("solid predecessor %s: %w", g.e.Name, err)
		}
	}
	if err := a.chain(r, sl.dec, r.idx != r.run); err != nil {
		return err
	}
	if r.pos > 0 {
		// The reader had its slot taken: skip what it has returned.
		if n, err := io.CopyN(io.Discard, &r.v, r.pos); err != nil {
			if err == io.EOF {
				err = sizeError(n, r.want)
			}
			return err
		}
	}
	sl.holder, r.slot = r, sl
	s.tick++
	sl.used = s.tick
	return nil
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

// readSolid is Read (w == nil) or WriteTo of a solid entry. The Archive's
// lock is held to attach a slot and to settle the result, not while the
// slot decodes: entries of different solid runs decode at the same time,
// each with its own slot, which no other reader takes while it is busy.
func (r *entryReader) readSolid(p []byte, w io.Writer) (int64, error) {
	a := r.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := r.attach(); err != nil {
		return 0, err
	}
	if r.done {
		if w != nil && r.err == io.EOF {
			return 0, nil
		}
		return 0, r.err
	}
	sl := r.slot
	a.solid.setBusy(sl, true)
	a.mu.Unlock()
	var n int64
	var err error
	if w == nil {
		var k int
		k, err = r.v.Read(p)
		n = int64(k)
		if r.teeOK {
			r.tee = append(r.tee, p[:k]...)
		}
	} else {
		if r.teeOK {
			w = teeWriter{r, w}
		}
		n, err = r.v.WriteTo(w)
		if err == nil {
			err = io.EOF
		}
	}
	a.mu.Lock()
	a.solid.setBusy(sl, false)
	r.pos += n
	if err != nil {
		err = r.finish(err)
		if w != nil && err == io.EOF {
			err = nil
		}
	}
	return n, err
}

// solidBusyMax is the most slots ever busy at once (tests).
var solidBusyMax atomic.Int32

func (s *solidState) setBusy(sl *solidSlot, b bool) {
	sl.busy = b
	if b {
		s.busy++
		if int32(s.busy) > solidBusyMax.Load() {
			solidBusyMax.Store(int32(s.busy))
		}
		return
	}
	s.busy--
	if s.idle.L != nil {
		s.idle.Broadcast()
	}
}

// wait waits, with mu (the Archive's lock) held, until a busy slot is
// released.
func (s *solidState) wait(mu *sync.Mutex) {
	if s.idle.L == nil {
		s.idle.L = mu
	}
	s.idle.Wait()
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

// attach gives a solid reader a positioned slot, with a.mu held.
func (r *entryReader) attach() error {
	a := r.a
	if a.closed.Load() {
		return errArchiveClosed
	}
	if r.done || r.slot != nil {
		if r.slot != nil {
			a.solid.tick++
			r.slot.used = a.solid.tick
		}
		return nil
	}
	sl, err := a.acquire(r)
	for sl == nil && err == nil {
		// Every slot is decoding another run's entry: wait for one.
		a.solid.wait(&a.mu)
		if a.closed.Load() {
			return errArchiveClosed
		}
		if r.slot != nil {
			return nil
		}
		sl, err = a.acquire(r)
	}
	if err == nil {
		err = a.position(r, sl)
	}
	if err != nil {
		r.finish(err)
		return r.err
	}
	return nil
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

type teeWriter struct {
	r *entryReader
	w io.Writer
}

func (t teeWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.r.tee = append(t.r.tee, p[:n]...)
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
			releaseUnpacker(r.fam, r.dec)
		} else {
			// Keep the decoder (and its tables) for the next entry.
			if old := *a.spareOf(r.fam); old != nil {
				releaseUnpacker(r.fam, old)
			}
			*a.spareOf(r.fam) = r.dec
		}
		r.dec = nil
	}
	if !r.done {
		r.done, r.err = true, errReaderClosed
	}
	if r.crypt != nil {
		// Nothing reads through it now: the decoder is reset with a
		// new source before its next use.
		r.crypt.Release()
		cryptReaders.Put(r.crypt)
		r.crypt = nil
	}
	r.tee, r.teeOK = nil, false
	r.a = nil
	return nil
}

// cryptReaders keeps AES-CBC decryptors (4 KiB buffer and expanded key)
// between entries.
var cryptReaders pool.Of[rarcrypto.Reader]

// memReader serves content held in memory: a RAR5 link target, or the
// kept content of a file copy's source.
type memReader struct {
	a   *Archive
	b   []byte
	off int
}

func (m *memReader) Read(p []byte) (int, error) {
	if m.a == nil {
		return 0, errReaderClosed
	}
	if m.a.closed.Load() {
		return 0, errArchiveClosed
	}
	if m.off >= len(m.b) {
		return 0, io.EOF
	}
	n := copy(p, m.b[m.off:])
	m.off += n
	return n, nil
}

func (m *memReader) WriteTo(w io.Writer) (int64, error) {
	if m.a == nil {
		return 0, errReaderClosed
	}
	if m.a.closed.Load() {
		return 0, errArchiveClosed
	}
	n, err := w.Write(m.b[m.off:])
	m.off += n
	return int64(n), err
}

func (m *memReader) Close() error {
	m.a = nil
	return nil
}

// keep remembers entry i's verified content for the file copies of it.
// The slice is never written again, so readers of an older one stay valid.
func (a *Archive) keep(i int, b []byte) {
	a.cacheMu.Lock()
	a.cacheIdx, a.cacheData = i, b
	a.cacheMu.Unlock()
}

// cached returns a reader of entry i's kept content, or nil.
func (a *Archive) cached(i int) io.ReadCloser {
	a.cacheMu.Lock()
	defer a.cacheMu.Unlock()
	if a.cacheIdx != i || a.cacheData == nil {
		return nil
	}
	return &memReader{a: a, b: a.cacheData}
}
