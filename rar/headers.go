package rar

import (
	"bytes"
	"hash/crc32"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// headerReader reads the headers of one volume after another, and only
// reads: the keys it decrypts headers with and the limits it counts the
// index against are the archive's (keyring.go, limits.go). It is shared
// by the random-access Archive and the forward-only Reader: next returns
// the next file entry with its data area still unread (pending bytes).
type headerReader struct {
	hd5      header5  // the current RAR5 header (readHeader5)
	hdrFirst [16]byte // readHeader5 scratch
	hdrIV    [16]byte
	cfg      *arc.Config // volume opening and naming
	keys     *keyring    // the archive's: passwords for encrypted headers
	lim      *limits     // the archive's
	index    *indexCount // the index an Archive keeps; nil for a Reader
	s        *source
	vol      int // index of the current volume
	version  int // 4 or 5, from the first volume's marker
	hbuf     []byte
	hbp      *[]byte // pooled backing of hbuf

	pending int64 // data-area bytes of the last header not yet consumed
	done    bool  // end-of-archive header (or EOF) met in this volume

	main mainHeader  // the current volume's main header
	more bool        // end header says another volume follows
	enc  headerCrypt // encrypted headers (-hp)

	comment   string
	haveCmt   bool
	endBlock4 bool // a RAR 2.9+ block was seen: the volume must end with an end block
	sawBlock4 bool // a block after the main header was seen in this volume

	warn warnings // archive-level conditions met while parsing (warnings.go)
}

// mainHeader is what the main header of the current volume says.
type mainHeader struct {
	volume    bool // part of a multi-volume set
	solid     bool
	locked    bool
	newNaming bool // RAR4 ".partN.rar" naming flag
	volNum    int  // RAR5 volume number (0 for the first)
	firstVol  bool
}

// headerCrypt is the state of encrypted headers (-hp): the key they are
// read with and, for RAR4, the salts met (each one a derivation).
type headerCrypt struct {
	on       bool
	key5     *rarcrypto.Keys5
	cbc      rarcrypto.CBC // RAR5 header decrypter, key expanded once
	check    []byte        // RAR5 header password check value or nil
	salt     string        // RAR4: last header salt
	salts    int
	distinct int
}

// newHeaderReader returns a header reader for an archive opened with cfg,
// whose keys and limits are keys and lim.
func newHeaderReader(cfg *arc.Config, keys *keyring, lim *limits) *headerReader {
	return &headerReader{cfg: cfg, keys: keys, lim: lim, s: newSource()}
}

// beginStream starts parsing a volume read forward from r, which is
// positioned at the marker.
func (p *headerReader) beginStream(r io.Reader, vol int) error {
	p.s.resetStream(r)
	return p.begin(vol)
}

// beginAt starts parsing volume vol held in ra, searching for the marker.
func (p *headerReader) beginAt(ra io.ReaderAt, size int64, vol int) error {
	off, _, err := findMarker(ra, size)
	if err != nil {
		return err
	}
	p.s.resetAt(ra, off, size)
	return p.begin(vol)
}

func (p *headerReader) begin(vol int) error {
	var m [8]byte
	if err := p.s.full(m[:7], "marker"); err != nil {
		return errs.EOF(err, "marker")
	}
	ver := 0
	switch {
	case string(m[:7]) == string(sig4):
		ver = 4
	case string(m[:7]) == string(sig5[:7]):
		if err := p.s.full(m[7:8], "marker"); err != nil {
			return errs.EOF(err, "marker")
		}
		if m[7] != 0 {
			return errs.Unsupported("RAR marker version %d", m[7])
		}
		ver = 5
	default:
		return errFormat
	}
	if p.version != 0 && ver != p.version {
		return errs.Corrupt("volume %d is RAR%d, the first is RAR%d", vol+1, ver, p.version)
	}
	p.version, p.vol, p.pending, p.done, p.more = ver, vol, 0, false, false
	p.endBlock4, p.sawBlock4 = false, false
	p.enc.on = false
	if ver == 5 {
		return p.main5()
	}
	return p.main4()
}

// next returns the next file entry of the current volume, or io.EOF at
// the volume's end. The entry's data area is left pending. It skips the
// data area before each header, then next4 or next5 reads the header
// and acts on it.
func (p *headerReader) next() (*file, error) {
	for {
		if err := p.skipData(); err != nil {
			return nil, err
		}
		if p.done {
			return nil, io.EOF
		}
		var f *file
		var err error
		if p.version == 5 {
			f, err = p.next5()
		} else {
			f, err = p.next4()
		}
		if f != nil || err != nil {
			return f, err
		}
	}
}

// header returns a reusable buffer of n bytes, from internal/pool.
// Nothing parsed keeps a slice of it (values are cloned out).
func (p *headerReader) header(n int) []byte {
	if cap(p.hbuf) < n {
		pool.Put(p.hbp)
		p.hbp = pool.Get(max(n, 4096))
		p.hbuf = *p.hbp
	}
	return p.hbuf[:n]
}

// release returns the header buffer and the source's read buffer; the
// header reader may go on (a later header gets a new buffer), but its
// source is unusable.
func (p *headerReader) release() {
	pool.Put(p.hbp)
	p.hbp, p.hbuf = nil, nil
	p.s.release()
}

// entry returns the file that parse makes of a file header, admitted to
// the index: a header that starts a new entry (isNew) is first checked
// against MaxEntries, before parse allocates anything for it.
func (p *headerReader) entry(isNew bool, parse func() (*file, error)) (*file, error) {
	if isNew {
		if err := p.index.admitNew(p.lim); err != nil {
			return nil, err
		}
	}
	f, err := parse()
	if err != nil {
		return nil, err
	}
	if err := p.index.admit(p.lim, f); err != nil {
		return nil, err
	}
	return f, nil
}

// service acts on the service headers RAR4 and RAR5 share (the
// caller skips the rest with their data): the recovery record (RR) is a
// warning; the archive comment (CMT, size bytes of data) is read when it
// is the first one, unencrypted and in one piece, stored or packed.
func (p *headerReader) service(f *file, size int64) error {
	switch {
	case f.e.Name == "RR":
		p.warn.add(warnRecovery, ErrRecoveryRecord)
	case f.e.Name == "CMT" && !p.haveCmt && f.crypt == cryptNone && !f.split && f.first:
		if f.method == 0 {
			return p.readComment(size)
		}
		return p.packedComment(f)
	}
	return nil
}

// readComment reads a stored comment of n bytes from the pending data.
func (p *headerReader) readComment(n int64) error {
	const maxComment = 1 << 20
	if n > maxComment || n > p.pending {
		return nil // leave it: skipped with the data area
	}
	b := make([]byte, n)
	if err := p.s.full(b, "comment"); err != nil {
		return errs.EOF(err, "comment") // inside a block: never a clean end
	}
	p.pending -= n
	p.comment, p.haveCmt = string(b), true
	return nil
}

// packedComment decodes a compressed CMT service header (RAR 3.x packs
// comments) from the pending data. A comment that does not decode is
// dropped, as unrar reports it and goes on; only I/O errors stop parsing.
func (p *headerReader) packedComment(f *file) error {
	const maxComment = 1 << 20
	n := p.pending
	if n > maxComment || f.e.Size > maxComment || f.e.Size < 0 {
		return nil
	}
	packed := make([]byte, n)
	if err := p.s.full(packed, "comment"); err != nil {
		return errs.EOF(err, "comment")
	}
	p.pending = 0
	d, err := newUnpacker(f, p.lim.mem)
	if err != nil || p.lim.checkDict(f) != nil {
		return nil
	}
	defer d.Close()
	if d.reset(bytes.NewReader(packed), f.algo, f.dict, f.e.Size, false) != nil {
		return nil
	}
	out := make([]byte, f.e.Size)
	if _, err := io.ReadFull(d, out); err != nil {
		return nil
	}
	if f.hasCRC && crc32.ChecksumIEEE(out) != f.crc {
		return nil
	}
	p.comment, p.haveCmt = string(out), true
	return nil
}
