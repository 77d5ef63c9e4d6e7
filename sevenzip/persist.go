package sevenzip

import (
	"io"
	"slices"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
)

// The persistable index of a 7z archive (engine.Indexer; the root's
// Archive.Index and WithIndex). 7z's plain header is exactly the
// locator: every entry, its folder and substream, the folders' coder
// chains and properties, the pack streams' offsets and sizes. The index
// keeps it decoded — decompressed and decrypted — so reopening reads no
// header from the archive, decodes nothing and derives no key; the
// bytes are parsed by the same bounded parser as an archive's (an index
// is untrusted input too: its digest detects accidents and staleness,
// not a forger who recomputes it).
//
// A header region longer than the open's digest covers whole (2 MiB:
// indexfmt.Digest hashes it by its ends) is digested whole before the
// first entry is acted on (CheckEntry, which the root's Extract calls).
//
// Payload, version 2:
//
//	byte    version (2; 1 lacks the full digest)
//	varint  base (file offset of the end of the signature header)
//	uvarint archive size (all volumes joined)
//	byte    flags: 1 = start header recovered from the end of the file
//	ranges  the header regions and their BLAKE3 (indexfmt.PutRanges):
//	        the signature header, the next header, an encoded header's
//	        pack streams
//	32      the BLAKE3 of every byte of them (indexfmt.DigestAll)
//	bytes   the plain header (starting with kHeader)
//	uvarint keys, then per key: bytes salt, byte cycles, 32 bytes key
//
// The volume mapping of a split set (name.7z.001, …) is the set's own
// naming: openIndex joins the volumes again (opening files costs no
// parsing) and checks the joined size and the ranges, which lie in the
// joined byte space.
const persistVersion = 2

// storedKeyID names a key an index brought: no password is stored.
type storedKeyID struct {
	salt   string
	cycles uint8
}

// addPackRanges records an encoded header's pack streams as header regions.
func (a *Archive) addPackRanges(si *streamsInfo) {
	for pi := range si.packSizes {
		if len(a.hdrRanges) >= indexfmt.MaxRanges {
			return
		}
		a.hdrRanges = append(a.hdrRanges, indexfmt.Range{Off: a.base + si.packPos + si.packOff[pi], Len: si.packSizes[pi]})
	}
}

// ExportIndex serves engine.Indexer. withKeys stores the keys derived
// from the password that opened the encrypted headers (the only one the
// archive has proved right); an archive with plain headers stores none.
func (c *capable) ExportIndex(withKeys bool) ([]byte, error) {
	a := (*Archive)(c)
	if a.closed.Load() {
		return nil, errClosed
	}
	if a.hdrPlain == nil && len(a.entries) > 0 {
		return nil, errs.Unsupported("7z: no plain header to index")
	}
	e := &indexfmt.Encoder{B: make([]byte, 0, len(a.hdrPlain)+256)}
	e.Byte(persistVersion)
	e.Varint(a.base)
	e.Uvarint(uint64(a.size))
	flags := byte(0)
	if a.recovered {
		flags |= 1
	}
	e.Byte(flags)
	sum, err := indexfmt.Digest(a.ra, a.size, a.hdrRanges)
	if err != nil {
		return nil, err
	}
	indexfmt.PutRanges(e, a.hdrRanges, sum)
	if indexfmt.Partial(a.hdrRanges) {
		if sum, err = indexfmt.DigestAll(a.ra, a.size, a.hdrRanges); err != nil {
			return nil, err
		}
	}
	e.Raw(sum[:])
	e.Bytes(a.hdrPlain)
	type kv struct {
		id  storedKeyID
		key [32]byte
	}
	var keys []kv
	if withKeys {
		// With encrypted headers the header password is the archive's;
		// without, entries were read with the passwords asked for them,
		// and a salt's key is kept when one password derived it (two
		// different keys for one salt: one was wrong, keep neither).
		a.mu.Lock()
		pw, ok := a.pw, a.hasPW
		a.mu.Unlock()
		at := make(map[storedKeyID]int) // index in keys; -1: ambiguous
		add := func(id storedKeyID, k [32]byte) {
			if j, seen := at[id]; seen {
				if j >= 0 && keys[j].key != k {
					at[id] = -1
				}
				return
			}
			at[id] = len(keys)
			keys = append(keys, kv{id, k})
		}
		a.keyMu.Lock()
		if a.haveLast && (!ok || a.lastID.pw == pw) {
			add(storedKeyID{a.lastID.salt, a.lastID.cycles}, a.lastKey)
		}
		for id, k := range a.keys {
			if !ok || id.pw == pw {
				add(storedKeyID{id.salt, id.cycles}, k)
			}
		}
		for id, k := range a.storedKeys {
			add(id, k)
		}
		a.keyMu.Unlock()
		keys = slices.DeleteFunc(keys, func(k kv) bool { return at[k.id] < 0 })
		slices.SortFunc(keys, func(x, y kv) int {
			if c := strings.Compare(x.id.salt, y.id.salt); c != 0 {
				return c
			}
			return int(x.id.cycles) - int(y.id.cycles)
		})
	}
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.Bytes([]byte(k.id.salt))
		e.Byte(k.id.cycles)
		e.Raw(k.key[:])
	}
	return e.B, nil
}

// maxStoredKeys bounds the keys one index may bring.
const maxStoredKeys = 1024

// openIndex is Format.OpenIndex for 7z: it rebuilds the Archive from a
// payload ExportIndex made, after checking the archive's size and the
// digest of its header regions.
func openIndex(ra io.ReaderAt, size int64, payload []byte, cfg *arc.Config) (arc.Archive, error) {
	c, err := conf.ForIndex(size, cfg)
	if err != nil {
		return nil, err
	}
	a := &Archive{cfg: c}
	if a.cfg.Budget == nil {
		a.cfg.Budget = conf.NewBudget(a.cfg.Bounds)
	}
	ra, size, err = joinVolumes(ra, size, &a.cfg)
	if err != nil {
		return nil, err
	}
	a.ra, a.size = ra, size
	d := &indexfmt.Decoder{B: payload}
	v := d.Byte("version")
	if d.Err == nil && v != 1 && v != persistVersion {
		return nil, errs.Unsupported("7z index version %d", v)
	}
	a.base = d.Varint("base")
	joined := d.Uvarint("size")
	flags := d.Byte("flags")
	if d.Err != nil {
		return nil, d.Err
	}
	if joined != uint64(size) {
		return nil, engine.Stale("the archive's size changed")
	}
	if a.base < sigHeaderSize || a.base > size {
		return nil, engine.Stale("damaged index: base")
	}
	a.recovered = flags&1 != 0
	if a.hdrRanges, err = indexfmt.CheckRanges(d, ra, size); err != nil {
		return nil, err
	}
	var all [32]byte
	if v > 1 {
		copy(all[:], d.Raw(32, "full digest"))
	}
	a.ixCheck = indexfmt.CheckLater(ra, size, a.hdrRanges, all, indexfmt.Partial(a.hdrRanges), "7z header")
	hdr := d.Bytes("header")
	nk := d.Count(34, maxStoredKeys, "keys")
	for i := 0; i < nk; i++ {
		salt := d.Bytes("key salt")
		cycles := d.Byte("key cycles")
		k := d.Raw(32, "key")
		if d.Err != nil {
			break
		}
		if a.storedKeys == nil {
			a.storedKeys = make(map[storedKeyID][32]byte, nk)
		}
		a.storedKeys[storedKeyID{string(salt), cycles}] = [32]byte(k)
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Err = engine.Stale("damaged index: trailing bytes")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if len(hdr) == 0 {
		return a, nil // an empty archive
	}
	a.mem = &memAccount{max: a.cfg.Bounds.MaxHeaderMemory}
	if err := a.mem.charge(int64(len(hdr)), "7z header"); err != nil {
		return nil, err
	}
	// The index's bytes stay the caller's: keep a copy (entry names may
	// point into it).
	hdr = append([]byte(nil), hdr...)
	r := &hreader{b: hdr, mem: a.mem, maxEntries: a.cfg.Bounds.MaxEntries}
	if id := r.number(); id != idHeader {
		return nil, engine.Stale("damaged index: not a plain 7z header")
	}
	a.hdrPlain = hdr
	if err := a.parsePlain(r); err != nil {
		return nil, err
	}
	return a, nil
}

// storedKey returns the key an index brought for p's salt and rounds.
func (a *Archive) storedKey(p *aes7z.Props) ([32]byte, bool) {
	a.keyMu.Lock()
	defer a.keyMu.Unlock()
	k, ok := a.storedKeys[storedKeyID{string(p.Salt), p.Cycles}]
	return k, ok
}

// CheckEntry serves engine.EntryChecker: in an Archive opened from an
// index whose header regions are longer than the open's digest covers
// whole, the first call digests all of them (once).
func (c *capable) CheckEntry(int) error { return c.ixCheck.Check() }
