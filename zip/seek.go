package zip

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/hmacx"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// OpenAt serves engine.EntrySeeker. A stored entry, plain or WinZip
// AES, is read from off directly: AES-CTR's key stream for block k is
// the counter k+1 enciphered. Nothing but the bytes read is decrypted;
// neither the CRC nor the AES authentication code can be checked then.
//
// A Deflate, Deflate64, BZip2, PPMd, LZMA, XZ, Shrink, Reduce or Implode
// entry, plain, WinZip AES or ZipCrypto, and a stored ZipCrypto entry,
// read through OpenAt takes a checkpoint at the first point of every
// Interval bytes of output where its decoder can: at a block boundary,
// deflate.Reader.Checkpoint (kind "deflate": the last 32 or 64 KiB and
// the input bit offset) or bzip2.Reader.Checkpoint (kind "bzip2": the
// bit offset of the next block, the block size level and the combined
// stream CRC so far, 6 bytes; such a reader decodes its blocks
// serially); between any two symbols, ppmd.ReaderZip.Checkpoint (kind
// "ppmd8": the range decoder and the whole model, up to the model's
// memory, 1 to 256 MiB, each) and, wherever it has handed out all it
// decoded, lzma.Reader.Checkpoint (kind "lzma": the window, up to
// min(dictionary, entry size), the probabilities and the range coder);
// between two LZMA2 chunks, xz.Reader.Checkpoint (kind "xz": the LZMA2
// state, the BCJ and Delta filters' and the xz block's: its running
// check and the stream's block records); between two codes,
// shrink.Reader.Checkpoint (kind "shrink": the string table, 44 KiB);
// between two symbols, implode.Reader.Checkpoint and
// reduce.Reader.Checkpoint (kinds "implode", "reduce": the last 4 or
// 8 KiB of output and the input bit offset, the trees or follower sets
// read again from the stream's start). A ZipCrypto entry's kind adds
// "+zipcrypto" ("zipcrypto" alone when stored) and its state the
// cipher's keys at the resumed byte, sealed (seek_zipcrypto.go). A later
// OpenAt resumes from the nearest one at or before off, the AES key
// stream or ZipCrypto keys positioned at the checkpoint's byte; a
// resumed BZip2 stream still checks every block CRC and, at the end, the
// stream CRC; a resumed PPMd stream its end marker; a resumed XZ stream
// its block checks, index and footer. A Zstandard entry (methods 93 and
// 20) takes one between two frames (kind "zstd": a version byte; In is
// the next frame's magic, checked on resuming), where a fresh decoder
// starts: frames are independent, and within one klauspost's decoder
// keeps its state to itself, so a single-frame entry has none; a resumed
// stream still checks each later frame's checksum. Every other entry
// (other methods, PKWARE strong encryption) opens from the start as
// Open does, returning start 0.
func (c *capable) OpenAt(i int, off int64) (io.ReadCloser, int64, error) {
	a := (*Archive)(c)
	if i < 0 || i >= len(a.files) {
		return nil, 0, fmt.Errorf("zip: entry index %d out of range", i)
	}
	f := &a.files[i]
	kind := cryptKind(f)
	if cpKindOf(f) != "" {
		if every := a.cps.Interval(); every > 0 {
			return a.openCheckpointed(i, off, every)
		}
	}
	if off <= 0 || f.method != methodStore || f.Size < 0 || kind != 0 && kind != cryptAES {
		rc, err := a.Open(i)
		return rc, 0, err
	}
	if err := checkOpen(f, &a.cfg); err != nil {
		return nil, 0, err
	}
	var hdr [localLen]byte
	dataOff, err := a.dataOffset(f, hdr[:])
	if err != nil {
		return nil, 0, err
	}
	size := int64(f.usize)
	over := cryptOverhead(f)
	if int64(f.csize) != size+over {
		// Stored data is its own size; let Open report what is wrong.
		rc, err := a.Open(i)
		return rc, 0, err
	}
	off = min(off, size)
	r := &storedAt{sec: section{ra: a.ra, off: dataOff + off, end: dataOff + size}}
	if kind == cryptAES {
		if err := a.startCTR(r, f, dataOff, off); err != nil {
			return nil, 0, err
		}
	}
	return r, off, nil
}

// startCTR checks the password of AES entry f (data at dataOff) and
// positions r's key stream at off.
func (a *Archive) startCTR(r *storedAt, f *file, dataOff, off int64) error {
	pw, err := a.cfg.Password(&f.Entry)
	if err != nil {
		return err
	}
	sl := zipcrypto.SaltLen(f.aesStrength)
	var h [16 + zipcrypto.VerifierLen]byte
	if _, err := a.ra.ReadAt(h[:sl+zipcrypto.VerifierLen], dataOff); err != nil {
		return errs.EOF(err, "WinZip AES salt")
	}
	var mac hmacx.HMAC // a seekable open is rare: its own PBKDF2 state
	key, err := a.keys.derive(&a.cfg, pw, h[:sl], zipcrypto.KeyLen(f.aesStrength), &mac)
	if err != nil {
		return err
	}
	if key.Verifier != [2]byte(h[sl:sl+2]) {
		return errPassword("WinZip AES password verifier")
	}
	r.ctr = new(zipcrypto.CTR)
	if err := r.ctr.Reset(key.Enc[:key.N]); err != nil {
		return errs.Corrupt("WinZip AES: %v", err)
	}
	r.ctr.SetOffset(off)
	start := dataOff + int64(sl+zipcrypto.VerifierLen)
	size := r.sec.end - dataOff
	r.sec = section{ra: a.ra, off: start + off, end: start + size}
	return nil
}

// storedAt reads stored data from an offset, deciphering AES-CTR when
// ctr is set, ZipCrypto when zc is.
type storedAt struct {
	sec section
	ctr *zipcrypto.CTR
	zc  *zipcrypto.Keys
}

func (r *storedAt) Read(p []byte) (int, error) {
	n, err := r.sec.Read(p)
	if r.ctr != nil {
		r.ctr.XOR(p[:n])
	}
	if r.zc != nil {
		r.zc.Decrypt(p[:n])
	}
	return n, err
}

func (r *storedAt) Close() error { return nil }

// StartAt serves engine.EntrySeeker: where OpenAt(i, off) would start.
func (c *capable) StartAt(i int, off int64) int64 {
	a := (*Archive)(c)
	if i < 0 || i >= len(a.files) || off <= 0 {
		return 0
	}
	f := &a.files[i]
	kind := cryptKind(f)
	switch {
	case cpKindOf(f) != "":
		if cp, ok := a.cps.Find(i, off); ok && a.cps.Interval() > 0 && cp.Kind == cpKindOf(f) && cp.Out <= int64(f.usize) {
			return cp.Out
		}
	case f.Size < 0 || kind != 0 && kind != cryptAES:
		return 0
	case f.method == methodStore:
		return min(off, f.Size)
	}
	return 0
}

// SetCheckpoints serves engine.Checkpointer.
func (c *capable) SetCheckpoints(p engine.CheckpointPolicy) {
	a := (*Archive)(c)
	a.cps.SetPolicy(p)
	a.cps.SetInput(a.cpInput) // restored ones must match the archive's bytes
}

// CheckpointStats serves engine.CheckpointReporter.
func (c *capable) CheckpointStats() engine.CheckpointStats { return c.cps.Stats() }

// cpKindOf is the checkpoint kind of entry f ("": it takes none): a
// Deflate, Deflate64, BZip2, PPMd, LZMA, XZ, Zstandard or legacy entry
// of known size, plain, WinZip AES or ZipCrypto (kind "+zipcrypto"), or
// a stored ZipCrypto one ("zipcrypto").
func cpKindOf(f *file) string {
	if f.Size < 0 {
		return ""
	}
	kind := ""
	if m := methods[f.method]; m != nil {
		kind = m.cpKind
	}
	switch cryptKind(f) {
	case 0, cryptAES:
		return kind
	case cryptZip:
		if f.method == methodStore {
			return kindZC
		}
		if kind != "" {
			return kind + zcSuffix
		}
	}
	return ""
}

// cpInByte is the byte of the entry's data a checkpoint resumes at:
// Deflate and BZip2 count their input in bits, PPMd and stored
// ZipCrypto in bytes, LZMA in bytes of the raw stream after its 9-byte
// header.
func cpInByte(cp engine.Checkpoint) int64 {
	base := baseKind(cp.Kind)
	if base == "" {
		return cp.In // stored ZipCrypto
	}
	m := methodByKind[base]
	switch {
	case m == nil || m.cpInBits:
		return cp.In / 8
	}
	return cp.In + m.cpInOff
}

// cpDecoder is a decoder that takes checkpoints: deflate.Reader (at
// block boundaries, where PauseAt makes it stop) and bzip2.Reader
// (between blocks).
type cpDecoder interface {
	CanCheckpoint() bool
	CheckpointSize() int
	Checkpoint(dst []byte) (state []byte, out, in int64)
	Total() int64
}

// pauser is a cpDecoder that must be told where to stop (Deflate).
type pauser interface{ PauseAt(out int64) }

// openCheckpointed opens entry i (of a kind that takes checkpoints)
// from the nearest checkpoint at or before off (from its start,
// verified, when there is none), with a reader that takes checkpoints
// as it goes.
func (a *Archive) openCheckpointed(i int, off int64, every int64) (io.ReadCloser, int64, error) {
	f := &a.files[i]
	t := &cpTaker{a: a, i: i, every: every, kind: cpKindOf(f)}
	var cp engine.Checkpoint
	ok := false
	if off > 0 {
		var err error
		cp, ok, err = a.cps.FindChecked(i, off, func(cp engine.Checkpoint) (bool, error) { return a.checkCP(i, cp) })
		if err != nil {
			return nil, 0, err
		}
	}
	if !ok || off <= 0 || cp.Kind != t.kind || cp.Out > int64(f.usize) {
		rc, err := a.Open(i)
		if err != nil {
			return nil, 0, err
		}
		z := firstPassDecoder(rc, f)
		if er, ok := rc.(*entryReader); ok && cryptKind(f) == cryptZip && (z != nil || f.method == methodStore) {
			d := &er.s.cr
			z = &zcCP{z: z, d: d, data: d.zc0, ra: a.ra, start: er.s.sec.end - int64(f.csize) + zipcrypto.HeaderLen,
				size: int64(f.csize) - zipcrypto.HeaderLen, base: baseKind(t.kind)}
		}
		if z == nil {
			return rc, 0, nil
		}
		t.rc, t.z = rc, z
		t.next = every
		if p, ok := z.(pauser); ok {
			p.PauseAt(every)
		}
		return t, 0, nil
	}
	rs, err := a.resume(i, cp)
	if err != nil {
		return nil, 0, err
	}
	t.rc, t.z, t.pos = rs, rs.z, cp.Out
	t.next = (cp.Out/every + 1) * every
	if p, ok := rs.z.(pauser); ok {
		p.PauseAt(t.next)
	}
	return t, cp.Out, nil
}

// firstPassDecoder returns the decoder of entry f's reader from Open
// that can take checkpoints (nil: none), made serial where it matters.
// By f's method: the pooled state keeps a Deflate decoder made for an
// earlier entry.
func firstPassDecoder(rc io.ReadCloser, f *file) cpDecoder {
	er, ok := rc.(*entryReader)
	if !ok || er.s == nil {
		return nil
	}
	if m := methods[f.method]; m != nil && m.firstPass != nil {
		return m.firstPass(&er.s.chain)
	}
	return nil
}

// resume restarts entry i from checkpoint cp: a reader of its data from
// the checkpoint's byte (the AES key stream positioned there) into a
// decoder restored from cp's state.
func (a *Archive) resume(i int, cp engine.Checkpoint) (*resumed, error) {
	f := &a.files[i]
	if err := checkOpen(f, &a.cfg); err != nil {
		return nil, err
	}
	var hdr [localLen]byte
	dataOff, err := a.dataOffset(f, hdr[:])
	if err != nil {
		return nil, err
	}
	size := int64(f.csize) - cryptOverhead(f)
	at := cpInByte(cp)
	if at > size || at < 0 || cp.Out < 0 || cp.Out > int64(f.usize) {
		return nil, errs.Corrupt("%s checkpoint beyond the entry's data", cp.Kind)
	}
	var data, keys zipcrypto.Keys
	zc := cryptKind(f) == cryptZip
	if zc {
		if cp.State, data, keys, err = a.openZC(f, dataOff, cp, at); err != nil {
			return nil, err
		}
	}
	r, err := a.dataAt(f, dataOff, at, &keys)
	if err != nil {
		return nil, err
	}
	rs := &resumed{n: int64(f.usize) - cp.Out, kind: cp.Kind}
	if zc {
		defer func() {
			if rs.z != nil || f.method == methodStore {
				rs.z = &zcCP{z: rs.z, r: r, data: data, ra: a.ra, start: r.sec.end - size, size: size, base: baseKind(cp.Kind)}
			}
		}()
	}
	if base := baseKind(cp.Kind); base == "" {
		if f.method != methodStore {
			return nil, errs.Corrupt("checkpoint of kind %q", cp.Kind)
		}
		rs.r = r
	} else {
		m := methods[f.method]
		if m == nil || m.resume == nil || m.cpKind != base {
			return nil, errs.Corrupt("checkpoint of kind %q", cp.Kind)
		}
		x := &resumeAt{a: a, f: f, dataOff: dataOff, data: &data, r: r, cp: cp}
		if rs.r, rs.z, rs.ends, err = m.resume(x); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// ppmdResumed reads a PPMd decoder restored from a checkpoint through
// its guard.
type ppmdResumed struct {
	p *ppmdReader
	g io.Reader
}

func (r ppmdResumed) Read(b []byte) (int, error) { return r.g.Read(b) }
func (r ppmdResumed) Close() error               { return r.p.Close() }

// resumeAt is what a method's resume (methods.go) gets: entry f of a,
// its data at dataOff, r reading it (decrypted) from the checkpoint's
// byte, and the ZipCrypto keys at the data's start (data) for header.
type resumeAt struct {
	a       *Archive
	f       *file
	dataOff int64
	data    *zipcrypto.Keys
	r       *storedAt
	cp      engine.Checkpoint
}

// header reads the entry's data from its start, for a state that needs
// what the stream's header says (LZMA's properties, PPMd's model,
// Implode's trees, Reduce's follower sets).
func (x *resumeAt) header() (io.Reader, error) { return x.a.dataAt(x.f, x.dataOff, 0, x.data) }

// resumed reads an entry resumed from a checkpoint, cut at the entry's
// size (the entry's CRC cannot be checked: it needs the whole entry).
// With ends, the decoder checks its own end (BZip2's stream CRC), which
// is read when the entry's size is reached.
type resumed struct {
	r    io.ReadCloser // nil once closed
	z    cpDecoder
	n    int64
	kind string
	ends bool
}

func (r *resumed) Read(p []byte) (int, error) {
	if r.r == nil {
		return 0, errClosed
	}
	if r.n <= 0 {
		if r.ends {
			r.ends = false
			var b [1]byte
			if m, err := r.r.Read(b[:]); m > 0 {
				return 0, errs.Corrupt("%s stream longer than the entry's size", r.kind)
			} else if err != nil && err != io.EOF {
				return 0, mapMethodErr(err)
			}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	n, err := r.r.Read(p)
	r.n -= int64(n)
	if err == io.EOF && r.n > 0 {
		err = errs.Truncated(r.kind + " stream ends before the entry's size")
	}
	if err == io.EOF && r.ends {
		r.ends = false // the decoder has seen its end
	}
	if err != nil && err != io.EOF && !isSentinel(err) {
		err = errs.Corrupt("%s: %v", r.kind, err)
	}
	return n, err
}

func (r *resumed) Close() error {
	if r.r != nil {
		r.r.Close()
		r.r, r.z = nil, nil
	}
	return nil
}

// cpTaker passes an entry's reader through and takes a checkpoint at the
// first point of every cell of the interval grid that has none yet
// where its decoder can take one.
type cpTaker struct {
	rc    io.ReadCloser
	z     cpDecoder // nil once closed
	a     *Archive
	i     int
	kind  string
	every int64
	next  int64
	pos   int64
}

func (t *cpTaker) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.pos += int64(n)
	if t.z != nil && t.pos >= t.next && t.z.CanCheckpoint() {
		t.take()
	}
	return n, err
}

func (t *cpTaker) take() {
	z := t.z
	if z.Total() != t.pos {
		t.z = nil // output and decoder disagree: take none
		return
	}
	if t.pos >= int64(t.a.files[t.i].usize) {
		return // a checkpoint at the end serves no read
	}
	cell := t.pos / t.every * t.every
	t.next = cell + t.every
	if p, ok := z.(pauser); ok {
		p.PauseAt(t.next)
	}
	if t.a.cps.Has(t.i, cell, cell+t.every) || !t.a.cps.Fits(z.CheckpointSize()) {
		return
	}
	state, out, in := z.Checkpoint(make([]byte, 0, z.CheckpointSize()))
	if state == nil {
		return // zcCP could not find the keys
	}
	t.a.cps.Add(engine.Checkpoint{Kind: t.kind, Stream: t.i, Out: out, In: in, Entry: t.i, EntryOff: out, State: state})
}

func (t *cpTaker) Close() error {
	t.z = nil
	return t.rc.Close()
}
