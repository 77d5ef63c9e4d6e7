package rar

import (
	"bytes"
	"hash/crc32"
	"io"
	"sync"
	"unsafe"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// parser reads the headers of one volume after another. It is shared by
// the random-access Archive and the forward-only Reader: next returns the
// next file entry with its data area still unread (pending bytes).
type parser struct {
	hd5      header5  // the current RAR5 header (readHeader5)
	hdrFirst [16]byte // readHeader5 scratch
	hdrIV    [16]byte
	cfg      *arc.Config
	s        *source
	vol      int // index of the current volume
	version  int // 4 or 5, from the first volume's marker
	hbuf     []byte
	hbp      *[]byte // pooled backing of hbuf

	pending int64 // data-area bytes of the last header not yet consumed
	done    bool  // end-of-archive header (or EOF) met in this volume

	// From the main header of the current volume.
	volume    bool // part of a multi-volume set
	solid     bool
	locked    bool
	newNaming bool // RAR4 ".partN.rar" naming flag
	volNum    int  // RAR5 volume number (0 for the first)
	firstVol  bool
	more      bool // end header says another volume follows

	// Encrypted headers (-hp).
	encHeaders     bool
	hkey5          *rarcrypto.Keys5
	hcbc           rarcrypto.CBC // RAR5 header decrypter, key expanded once
	hcheck         []byte        // RAR5 header password check value or nil
	hsalt          string        // RAR4: last header salt
	hsalts         int
	hsaltsDistinct int
	hpwOK          bool // a header decrypted with a valid CRC: the password is right

	comment string
	haveCmt bool
	pwCache *string
	budget  *engine.Budget              // key-derivation account of this archive
	keys5   map[string]*rarcrypto.Keys5 // earlier RAR5 keys (last5 holds the latest)
	last5   lastKey5
	keys3   map[string]*rarcrypto.Keys3
	dictMax int64
	memMax  int64
	sizeMax int64

	// The index an Archive keeps (index set): entries admitted so far and
	// the memory they hold, bounded by MaxEntries and MaxHeaderMemory.
	index      bool
	endBlock4  bool // a RAR 2.9+ block was seen: the volume must end with an end block
	sawBlock4  bool // a block after the main header was seen in this volume
	nentries   int64
	indexMem   int64
	entriesMax int64
	headMemMax int64

	warn warnings // archive-level conditions met while parsing (warnings.go)

	// Keys an index brought (persist.go), by salt and rounds: used
	// without asking for a password.
	stored5 map[string]*rarcrypto.Keys5
	stored3 map[string]*rarcrypto.Keys3
}

// newParser reads with cfg, resolved by conf (its Limits are in force).
func newParser(cfg *arc.Config) *parser {
	lim := cfg.Limits
	b := cfg.Budget
	if b == nil {
		// Used without the root: the archive still gets its own account.
		b = engine.NewBudget(lim.MaxKDFRounds)
	}
	return &parser{cfg: cfg, s: newSource(), dictMax: lim.MaxDictionary, memMax: lim.MaxMemory, sizeMax: lim.MaxEntrySize,
		entriesMax: lim.MaxEntries, headMemMax: lim.MaxHeaderMemory, budget: b}
}

// entryOverhead is the index memory of one entry beyond its strings: the
// arc.Entry and file values, one part, the two slice slots that point at
// them and the name map resolve builds.
const entryOverhead = int64(unsafe.Sizeof(arc.Entry{})+unsafe.Sizeof(file{})+unsafe.Sizeof(part{})) + 2*8 + 64

// admitNew checks MaxEntries before a header that starts a new entry is
// parsed, so an archive over the limit fails before anything is allocated
// for the entry.
func (p *parser) admitNew() error {
	if p.index && p.nentries >= p.entriesMax {
		return errs.Limit("more than %d entries (MaxEntries)", p.entriesMax)
	}
	return nil
}

// admit accounts a parsed entry that the Archive will keep against
// MaxHeaderMemory.
func (p *parser) admit(f *file) error {
	if !p.index || !f.first {
		return nil
	}
	e := f.e
	n := entryOverhead + int64(len(e.Name)+len(e.LinkTarget)+len(e.Method)+len(e.Comment)+
		len(f.salt)+len(f.check)+len(f.blake))
	if p.indexMem+n > p.headMemMax {
		return errs.Limit("index of %d entries needs more than %d bytes (MaxHeaderMemory)", p.nentries+1, p.headMemMax)
	}
	p.indexMem += n
	p.nentries++
	return nil
}

// password returns the password for e (nil: the headers). A nil callback
// or an empty answer means none is known.
func (p *parser) password(e *arc.Entry) (string, error) {
	if e == nil && p.pwCache != nil {
		return *p.pwCache, nil
	}
	if p.cfg.Password == nil {
		return "", errs.ErrPasswordRequired
	}
	pw, err := p.cfg.Password(e)
	if err != nil {
		return "", err
	}
	if pw == "" {
		return "", errs.ErrPasswordRequired
	}
	if e == nil {
		p.pwCache = &pw
	}
	return pw, nil
}

// sharedKeys, when set (by tests only), memoizes derived keys across
// archives; the library itself keeps keys per archive so they do not
// outlive it. Keys found there are not charged to the budget.
var sharedKeys *sync.Map

// maxKeys bounds the key caches.
const maxKeys = 256

// rounds3 is the fixed RAR 3.x key-derivation count (SHA-1 rounds).
const rounds3 = 1 << 18

// keyID names one derivation: password, salt and round count.
func keyID(pw string, salt []byte, lg2 int) string {
	return pw + "\x00" + string(salt) + "\x00" + string(rune('0'+lg2))
}

// derive5 returns the RAR5 keys for a password, salt and round count
// (2^lg2 PBKDF2 rounds, plus 32 for the hash key and check value). Each
// distinct derivation is charged to the archive's KDF budget before it
// runs; repeated ones (rar uses one salt for a whole archive) come from
// the per-archive cache and are free.
func (p *parser) derive5(pw string, salt []byte, lg2 int) (*rarcrypto.Keys5, error) {
	if lg2 < 0 || lg2 > kdfMaxLg2 {
		return nil, errs.Unsupported("RAR5 KDF count 2^%d", lg2)
	}
	// The last key first: rar uses one salt for a whole archive, and
	// this needs no key string and no map.
	if l := &p.last5; l.k != nil && l.lg2 == lg2 && l.pw == pw && l.salt == string(salt) {
		return l.k, nil
	}
	k := keyID(pw, salt, lg2)
	if v, ok := p.keys5[k]; ok {
		p.setLast5(lastKey5{pw: pw, salt: string(salt), lg2: lg2, k: v})
		return v, nil
	}
	var v *rarcrypto.Keys5
	if sharedKeys != nil {
		if x, ok := sharedKeys.Load("5" + k); ok {
			v = x.(*rarcrypto.Keys5)
		}
	}
	if v == nil {
		if err := p.budget.ChargeKDF(1<<lg2 + 32); err != nil {
			return nil, err
		}
		v = rarcrypto.Derive5(pw, salt, lg2)
		if sharedKeys != nil {
			sharedKeys.Store("5"+k, v)
		}
	}
	p.setLast5(lastKey5{pw: pw, salt: string(salt), lg2: lg2, k: v})
	return v, nil
}

// key5Of is the kept RAR5 key for pw, salt and lg2 (the last one or one
// in the map), or nil.
func (p *parser) key5Of(pw string, salt []byte, lg2 int) *rarcrypto.Keys5 {
	if l := &p.last5; l.k != nil && l.lg2 == lg2 && l.pw == pw && l.salt == string(salt) {
		return l.k
	}
	return p.keys5[keyID(pw, salt, lg2)]
}

// setLast5 makes l the last key; the one it replaces moves to the map, so
// every key kept is in one of the two.
func (p *parser) setLast5(l lastKey5) {
	if old := &p.last5; old.k != nil {
		if p.keys5 == nil {
			p.keys5 = make(map[string]*rarcrypto.Keys5)
		}
		if len(p.keys5) >= maxKeys {
			clear(p.keys5) // bounded memory; a re-derivation is charged again
		}
		p.keys5[keyID(old.pw, []byte(old.salt), old.lg2)] = old.k
	}
	p.last5 = l
}

// lastKey5 is the RAR5 derivation made or found last.
type lastKey5 struct {
	pw, salt string
	lg2      int
	k        *rarcrypto.Keys5
}

// derive3 is derive5 for RAR 3.x keys (2^18 SHA-1 rounds each).
func (p *parser) derive3(pw string, salt []byte) (*rarcrypto.Keys3, error) {
	k := keyID(pw, salt, 18)
	if v, ok := p.keys3[k]; ok {
		return v, nil
	}
	var v *rarcrypto.Keys3
	if sharedKeys != nil {
		if x, ok := sharedKeys.Load("3" + k); ok {
			v = x.(*rarcrypto.Keys3)
		}
	}
	if v == nil {
		if err := p.budget.ChargeKDF(rounds3); err != nil {
			return nil, err
		}
		v = rarcrypto.Derive3(pw, salt)
		if sharedKeys != nil {
			sharedKeys.Store("3"+k, v)
		}
	}
	if p.keys3 == nil {
		p.keys3 = make(map[string]*rarcrypto.Keys3)
	}
	if len(p.keys3) >= maxKeys {
		clear(p.keys3)
	}
	p.keys3[k] = v
	return v, nil
}

// beginStream starts parsing a volume read forward from r, which is
// positioned at the marker.
func (p *parser) beginStream(r io.Reader, vol int) error {
	p.s.resetStream(r)
	return p.begin(vol)
}

// beginAt starts parsing volume vol held in ra, searching for the marker.
func (p *parser) beginAt(ra io.ReaderAt, size int64, vol int) error {
	off, _, err := findMarker(ra, size)
	if err != nil {
		return err
	}
	p.s.resetAt(ra, off, size)
	return p.begin(vol)
}

func (p *parser) begin(vol int) error {
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
	p.encHeaders = false
	if ver == 5 {
		return p.main5()
	}
	return p.main4()
}

// next returns the next file entry of the current volume, or io.EOF at
// the volume's end. The entry's data area is left pending.
func (p *parser) next() (*file, error) {
	if p.pending > 0 {
		if err := p.s.skip(p.pending, "data area"); err != nil {
			return nil, err
		}
		p.pending = 0
	}
	if p.done {
		return nil, io.EOF
	}
	if p.version == 5 {
		return p.next5()
	}
	return p.next4()
}

// header returns a reusable buffer of n bytes, from internal/pool.
// Nothing parsed keeps a slice of it (values are cloned out).
func (p *parser) header(n int) []byte {
	if cap(p.hbuf) < n {
		pool.Put(p.hbp)
		p.hbp = pool.Get(max(n, 4096))
		p.hbuf = *p.hbp
	}
	return p.hbuf[:n]
}

// release returns the header buffer and the source's read buffer; the
// parser may go on (a later header gets a new buffer), but its source
// is unusable.
func (p *parser) release() {
	pool.Put(p.hbp)
	p.hbp, p.hbuf = nil, nil
	p.s.release()
}

// readComment reads a stored comment of n bytes from the pending data.
func (p *parser) readComment(n int64) error {
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
func (p *parser) packedComment(f *file) error {
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
	d, err := p.newUnpacker(f)
	if err != nil || p.checkDict(f) != nil {
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
