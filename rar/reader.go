package rar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"path/filepath"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/srcsize"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// Reader reads a RAR archive forward-only from a stream; it implements
// arc.Reader. Later volumes are opened through Config.OpenVolume.
type Reader struct {
	p      *headerReader // the header reader
	keys   keyring
	limits limits
	cur    *file
	index  int
	name   string // current volume name
	vols   int
	close  []io.Closer

	data     streamData
	crypt    *rarcrypto.Reader // from cryptReaders at the first encrypted entry, back at Close
	v        crc32x.Reader
	mac      macCRC // the RAR5 MAC-converted CRC check, when v uses it
	dec      unpacker
	decOK    bool // decoder state valid for a solid continuation
	body     io.Reader
	link     bytes.Reader     // content of a symlink: RAR4 data read at Next, RAR5 target
	lim      io.LimitedReader // stored data
	guess    bool
	want     int64               // decoded size the header declares; -1 unknown or stored
	seen     map[string]struct{} // names met so far, for file copies
	skipped  int                 // older file versions not listed
	used     bool                // the decoder was given the current entry
	late     lateHash            // RAR5 split entry: the hash checked against lateWant
	lateBuf  [32]byte
	lateWant []byte
	err      error
}

func newReader(r io.Reader, cfg *arc.Config) (arc.Reader, error) { return NewReader(r, conf.From(cfg)) }

// NewReader reads the marker and main header from r, which must be
// positioned at the RAR marker. Without arc.WithFileVersions the Reader
// skips every older file version ("name;n"), even one with no current
// file after it, which Archive lists: a stream cannot look ahead.
func NewReader(r io.Reader, opts ...arc.Option) (*Reader, error) {
	cfg := new(arc.Config) // kept by the header reader: one allocation, not NewConfig's two
	if err := conf.Apply(cfg, opts...); err != nil {
		return nil, err
	}
	rd := &Reader{keys: newKeyring(cfg), limits: resolveLimits(&cfg.Bounds), name: cfg.Name, vols: 1}
	p := newHeaderReader(cfg, &rd.keys, &rd.limits)
	rd.p = p
	if err := p.beginStream(r, 0); err != nil {
		return nil, err
	}
	rd.data.r = rd
	if p.main.volume && !p.main.firstVol {
		if err := rd.fromFirst(); err != nil {
			p.release()
			return nil, err
		}
	}
	return rd, nil
}

// fromFirst restarts on the first volume of the set when the stream is a
// later one (unrar goes back to the first volume too).
func (r *Reader) fromFirst() error {
	p := r.p
	first := p.firstVolumeName(r.name)
	if first == r.name && p.version == 4 {
		return nil // an old (pre-3.0) RAR4 first volume without the flag
	}
	if r.name == "" || p.cfg.OpenVolume == nil || first == r.name {
		return fmt.Errorf("%w: not the first volume of a set (RAR volume %d); open the first volume", errs.ErrTruncated, p.main.volNum+1)
	}
	ra, size, err := p.cfg.OpenVolume(first)
	if err != nil {
		return fmt.Errorf("%w: %s is not the first volume of its set; open %s: %w",
			errs.ErrTruncated, filepath.Base(r.name), filepath.Base(first), err)
	}
	if c, ok := ra.(io.Closer); ok {
		r.close = append(r.close, c)
	}
	if err := srcsize.Check(ra, size); err != nil {
		return fmt.Errorf("volume %s: %w", filepath.Base(first), err)
	}
	r.name = first
	return p.beginAt(ra, size, 0)
}

// Comment returns the archive comment seen so far (RAR stores it before
// the first entry, so it is known once NewReader returns or after the
// first Next).
func (r *Reader) Comment() string { return r.p.comment }

// Next advances to the next entry. In a solid archive the rest of the
// current entry is decoded (not just skipped): the next one depends on it.
func (r *Reader) Next() (*arc.Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.cur != nil {
		if err := r.finishEntry(); err != nil {
			r.err = err
			return nil, err
		}
		// What is left of its data: a cut there is the entry's.
		if err := r.p.skipData(); err != nil {
			r.err = err
			return nil, err
		}
	}
	for {
		f, err := r.p.next()
		if err == io.EOF {
			if r.p.main.volume && (r.p.more || r.cur != nil && r.cur.split) {
				if err := r.nextVolume(); err != nil {
					r.err = err
					return nil, err
				}
				continue
			}
			r.cur = nil
			r.err = io.EOF
			return nil, io.EOF
		}
		if err != nil {
			if r.cur != nil && errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrPassword) {
				// Cut in a header after an entry whose data was all
				// there (skipped above): the archive is not whole, the
				// entry before is fine, as for the Archive.
				err = errs.Incomplete(err)
			}
			r.err = err
			return nil, err
		}
		if !f.first {
			continue // continuation whose start we skipped
		}
		if f.version == 5 && (f.e.Link == arc.LinkSymlink || f.e.Link == arc.LinkJunction) {
			f.e.Size = int64(len(f.e.LinkTarget)) // what reading it gives
		}
		if f.isVersion && !r.p.cfg.FileVersions {
			// Not listed; in a solid archive it is still decoded, as the
			// entries after it continue its window.
			r.skipped++
			r.cur = f
			if r.startEntry() == nil {
				if err := r.finishEntry(); err != nil {
					r.err = err
					return nil, err
				}
			} else if err := r.skipEntry(); err != nil {
				r.err = err
				return nil, err
			}
			r.cur = nil
			continue
		}
		f.e.Index = r.index
		r.index++
		r.cur = f
		err = r.startEntry()
		if f.e.Link != arc.LinkCopy || err == nil || errors.Is(err, errs.ErrUnsupported) {
			// A later copy can name it (not a copy of a missing entry).
			if r.seen == nil {
				r.seen = make(map[string]struct{})
			}
			r.seen[f.e.Name] = struct{}{}
		}
		if err != nil {
			// The entry is listed; reading it reports err.
			r.body = errReader{err}
		} else if f.version == 5 && (f.e.Link == arc.LinkSymlink || f.e.Link == arc.LinkJunction) {
			r.link.Reset([]byte(f.e.LinkTarget))
			r.body = &r.link
		} else if f.version == 4 && f.e.Link == arc.LinkSymlink && f.e.Size <= meta.MaxLinkTarget {
			// RAR 1.5–4.x Unix symlinks store the target as the data.
			b, err := io.ReadAll(r.body)
			if err != nil {
				r.body = errReader{err}
			} else {
				f.e.LinkTarget = string(b)
				r.link.Reset(b)
				r.body = &r.link
			}
		}
		return f.e, nil
	}
}

// nextVolume opens the volume after the current one.
func (r *Reader) nextVolume() error {
	p := r.p
	ra, size, name, err := p.openVolumeAfter(r.name, r.vols)
	if err != nil {
		return err
	}
	if c, ok := ra.(io.Closer); ok {
		r.close = append(r.close, c)
	}
	r.name = name
	r.vols++
	return p.beginAt(ra, size, r.vols-1)
}

// startEntry builds the data chain of the current entry.
func (r *Reader) startEntry() error {
	f := r.cur
	r.used = false
	r.want = -1
	r.data.left, r.data.cut = r.p.pending, false
	r.body = noData{}
	if f.broken != nil {
		return f.broken
	}
	if !entryData(f.e) {
		return nil
	}
	if f.e.Link == arc.LinkCopy {
		if _, ok := r.seen[f.e.LinkTarget]; !ok {
			return errs.Corrupt("file copy of missing entry %q", f.e.LinkTarget)
		}
		return errs.Unsupported("file copy of %q cannot be read forward-only; copy the extracted %s", f.e.LinkTarget, f.e.LinkTarget)
	}
	if err := r.limits.checkSize(f); err != nil {
		return err
	}
	if f.crypt != cryptNone && r.crypt == nil {
		r.crypt = cryptReaders.Get()
	}
	src, guess, err := r.keys.decrypter(f, &r.data, r.crypt)
	if err != nil {
		return err
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
		return errs.Unsupported("%s: RAR method byte", f.e.Name)
	default:
		if err := r.limits.checkDict(f); err != nil {
			return err
		}
		if f.solid && !r.decOK && r.dec != nil {
			return errs.Corrupt("%s: solid entry without its predecessor", f.e.Name)
		}
		if r.dec == nil || familyOf(f.algo) != r.dec.family() {
			d, err := newUnpacker(f, r.limits.mem)
			if err != nil {
				return err
			}
			if r.dec != nil {
				r.dec.Close()
			}
			r.dec = d
		}
		r.used = true
		r.decOK = false
		setWorkers(r.dec, r.p.cfg.Workers, f.dict, r.limits.mem)
		if err := r.dec.reset(src, f.algo, f.dict, f.e.Size, f.solid); err != nil {
			return mapErr(err, guess)
		}
		out = r.dec
		r.want = declaredSize(f)
	}
	if f.version == 5 && f.split {
		r.lateVerifier(f, out)
	} else {
		verifier(&r.v, &r.mac, f, out)
	}
	r.body = &r.v
	return nil
}

// lateVerifier is verifier for a RAR5 entry that continues in the next
// volume. Its first header holds only the hash of this part's packed data;
// the hash of the whole file, and whether it is a MAC (the hash-MAC flag
// of the last part's encryption record), come with the last part, read
// while the data streams. The verifier compares against r.lateWant, which
// nextPart fills from each continuation header, and lateHash applies the
// MAC the last part asks for when the sum is taken.
func (r *Reader) lateVerifier(f *file, out io.Reader) {
	size := f.e.Size
	if f.unknown || f.method != 0 {
		size = -1 // as verifier
	}
	r.late = lateHash{f: f}
	switch {
	case f.blake != nil:
		r.late.Hash = newBLAKE2sp()
	case f.hasCRC:
		r.late.Hash = crc32.NewIEEE()
	default:
		r.v.ResetHash(out, nil, nil, size)
		return
	}
	r.setLateWant(f)
	r.v.ResetHash(out, &r.late, r.lateWant, size)
}

// setLateWant stores f's expected sum in r.lateWant, in place: the
// verifier holds that slice.
func (r *Reader) setLateWant(f *file) {
	if f.blake != nil && len(f.blake) == len(r.lateBuf) {
		copy(r.lateBuf[:], f.blake)
		r.lateWant = r.lateBuf[:]
	} else {
		binary.BigEndian.PutUint32(r.lateBuf[:4], f.crc)
		r.lateWant = r.lateBuf[:4]
	}
}

// lateHash is a CRC-32 or BLAKE2sp whose Sum is converted to the RAR5 MAC
// when the entry, by its last part, says so.
type lateHash struct {
	hash.Hash
	f *file
}

func (h *lateHash) Sum(b []byte) []byte {
	f := h.f
	if !f.useMAC || f.hashKey == nil {
		return h.Hash.Sum(b)
	}
	if c, ok := h.Hash.(hash.Hash32); ok {
		return binary.BigEndian.AppendUint32(b, rarcrypto.MACCRC32(f.hashKey, c.Sum32()))
	}
	m := macHash{Hash: h.Hash, key: f.hashKey}
	return m.Sum(b)
}

// skipEntry skips the packed data of the current entry, across volumes.
func (r *Reader) skipEntry() error {
	r.p.pending = r.data.left
	for r.cur.split {
		if err := r.data.nextPart(); err != nil {
			return err
		}
		r.p.pending = r.data.left
	}
	return nil
}

// finishEntry consumes what is left of the current entry: decoded to the
// end in solid archives, skipped otherwise.
func (r *Reader) finishEntry() error {
	f := r.cur
	if r.used && r.p.main.solid {
		if _, err := io.Copy(io.Discard, r.body); err != nil && !r.p.main.solid {
			return err
		} else if err == nil {
			r.decOK = true
		}
	}
	// Skip the rest of the packed data, across volumes.
	r.p.pending = r.data.left
	for f.split {
		if err := r.data.nextPart(); err != nil {
			return err
		}
		r.p.pending = r.data.left
	}
	return nil
}

// Read reads the current entry's content, verified at its end.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil || r.body == nil {
		return 0, io.EOF
	}
	n, err := r.body.Read(p)
	if err == io.EOF {
		err = r.atEOF()
	}
	return n, mapErr(r.cutErr(err), r.guess)
}

// atEOF checks the decoded size once the decoder says the entry ended.
func (r *Reader) atEOF() error {
	if r.want >= 0 && r.v.N() != r.want {
		err := sizeError(r.v.N(), r.want)
		r.body = errReader{err}
		r.want = -1
		return err
	}
	if r.used {
		r.decOK = true
	}
	return io.EOF
}

// WriteTo writes the rest of the current entry to w, straight from the
// decoder's window when there is one (io.Copy uses it).
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	if r.cur == nil || r.body == nil {
		return 0, nil
	}
	wt, ok := r.body.(io.WriterTo)
	if !ok {
		return pool.Copy(w, r) // io.Copy would allocate 32 KiB per entry
	}
	n, err := wt.WriteTo(w)
	if err == nil && r.body == &r.v {
		if err = r.atEOF(); err == io.EOF {
			err = nil
		}
	}
	return n, mapErr(r.cutErr(err), r.guess)
}

// cutErr reports any failure of an entry whose data the stream cut short
// as that truncation: a decoder that ran out of input may first see the
// damage (a bad table, a distance, a checksum) before the error.
func (r *Reader) cutErr(err error) error {
	if err != nil && err != io.EOF && r.data.cut {
		return errDataCut
	}
	return err
}

// Close releases the decoder and the volumes the Reader opened.
func (r *Reader) Close() error {
	if r.dec != nil {
		r.dec.release()
		r.dec = nil
	}
	for _, c := range r.close {
		c.Close()
	}
	r.close = nil
	r.p.release()
	r.err = errors.New("rar: reader closed")
	// Nothing reads through the decryptor now (the entry's chain is
	// dropped), so it can serve another archive.
	r.cur, r.body = nil, nil
	r.v.ResetHash(nil, nil, nil, 0)
	putCrypt(&r.crypt)
	return nil
}

// streamData reads the current entry's packed data from the stream,
// moving to the next volume when a part ends and the entry continues.
type streamData struct {
	r    *Reader
	left int64
	cut  bool // the stream ended inside the entry's data (errDataCut returned)
}

func (d *streamData) Read(p []byte) (int, error) {
	for d.left == 0 {
		if !d.r.cur.split {
			return 0, io.EOF
		}
		if err := d.nextPart(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n, err := d.r.p.s.Read(p)
	d.left -= int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err, d.cut = errDataCut, true
	}
	return n, err
}

// nextPart opens the next volume and reads the continuation header.
func (d *streamData) nextPart() error {
	r := d.r
	f := r.cur
	p := r.p
	p.pending = d.left
	for {
		g, err := p.next()
		if err == io.EOF {
			if err := r.nextVolume(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if g.first || g.e.Name != f.e.Name {
			return errs.Corrupt("%s: continuation missing in the next volume", f.e.Name)
		}
		f.split = g.split
		f.hasCRC, f.crc, f.blake = g.hasCRC, g.crc, g.blake
		switch {
		case f.version == 5:
			// The hash of the whole file and its MAC flag sit in the
			// last part (see lateVerifier).
			f.useMAC = g.useMAC
			if r.late.f == f && (g.blake != nil) == (len(r.lateWant) == len(r.lateBuf)) {
				r.setLateWant(g)
			}
		case g.hasCRC:
			// The checksum of the whole file sits in the last part.
			r.v.Expect(g.crc, f.e.Size)
		}
		d.left = p.pending
		p.pending = 0
		return nil
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
