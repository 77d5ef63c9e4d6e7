package rar

import (
	"io"
	"sort"
	"strconv"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// The persistable index of a RAR archive (engine.Indexer; the root's
// Archive.Index and WithIndex): every entry with what the reader
// needs (packed parts by volume and offset, algorithm, dictionary,
// solid flags, encryption salt/IV/rounds/check value, stored CRC32 or
// BLAKE2sp, the file-copy source), the archive flags, and per volume its
// size and the BLAKE3 of its header regions: every byte between the
// entries' data areas (the headers, service headers, comments), each
// region past 2 MiB by its first and last MiB, and at most MaxRanges
// regions per volume (evenly spread) — a volume with more headers is
// checked on a sample of them, plus its size and, for the first, its
// first and last 64 KiB (the root's check) — and, when that left bytes
// out, the BLAKE3 of every byte of every region, checked before the
// first entry is acted on (CheckEntry, which the root's Extract calls:
// a RAR5 link target or a directory's attributes lie in headers).
//
// Volumes after the first are found again by the set's naming rules from
// the name the archive is reopened under, so a moved set still opens.
// An archive with a missing volume, a damaged header or a cut end is
// not indexed (ErrUnsupported): an index describes a complete archive.
//
// Keys (IndexWithKeys): those the archive proved right — derived from
// the password that decrypted the headers (-hp), or RAR5 keys whose
// password check value matches an entry's. RAR 1.5-2.0 ciphers have no
// derived key; they ask for the password again.
//
// Payload, version 2:
//
//	byte    version (2; 1 lacks the full digests)
//	byte    RAR version (4 or 5); byte flags (solid, locked, new naming, encrypted headers)
//	bytes   comment
//	uvarint volumes; per volume: uvarint size, ranges and BLAKE3, and
//	        32 bytes: the BLAKE3 of every byte of every region (DigestAll)
//	uvarint files; per file: indexfmt Entry, then the reader's fields
//	uvarint RAR5 keys: bytes salt, byte lg2, key, hash key, check
//	uvarint RAR3 keys: bytes salt, key, IV
const persistVersion = 2

// File flag bits in the payload.
const (
	pfSolid = 1 << iota
	pfUnknown
	pfSplit
	pfFirst
	pfUseMAC
	pfHasCRC
	pfIsVersion
	pfLinkRead
	pfCopied
)

// volumeRanges returns the header regions of volume v: the bytes before,
// between and after the data areas of every entry part in it, a sample of
// at most MaxRanges of them.
func (a *Archive) volumeRanges(v int) []indexfmt.Range {
	rs := a.allRanges(v)
	if len(rs) > indexfmt.MaxRanges {
		sample := make([]indexfmt.Range, indexfmt.MaxRanges)
		for i := range sample {
			sample[i] = rs[i*(len(rs)-1)/(indexfmt.MaxRanges-1)]
		}
		rs = sample
	}
	return rs
}

// allRanges are all the header regions of volume v (volumeRanges).
func (a *Archive) allRanges(v int) []indexfmt.Range {
	var parts []part
	for _, f := range a.files {
		for _, p := range f.parts {
			if p.vol == v {
				parts = append(parts, p)
			}
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].off < parts[j].off })
	size := a.vols[v].size
	var rs []indexfmt.Range
	at := int64(0)
	for _, p := range parts {
		if p.off > at {
			rs = append(rs, indexfmt.Range{Off: at, Len: p.off - at})
		}
		at = max(at, p.off+p.size)
	}
	if at < size {
		rs = append(rs, indexfmt.Range{Off: at, Len: size - at})
	}
	return rs
}

// partialRanges reports whether the open's digest of volume v's header
// regions left bytes out (a sample, or a region hashed by its ends).
func partialRanges(all []indexfmt.Range) bool {
	return len(all) > indexfmt.MaxRanges || indexfmt.Partial(all)
}

// ExportIndex serves engine.Indexer.
func (c *capable) ExportIndex(withKeys bool) ([]byte, error) {
	a := (*Archive)(c)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return nil, errArchiveClosed
	}
	if a.missingVol != nil || a.warning != nil {
		return nil, errs.Unsupported("RAR: an incomplete archive (missing volume or cut end) is not indexed")
	}
	p := a.p
	e := &indexfmt.Encoder{B: make([]byte, 0, 96*len(a.files)+256)}
	e.Byte(persistVersion)
	e.Byte(byte(p.version))
	var fl byte
	for k, b := range []bool{p.main.solid, p.main.locked, p.main.newNaming, p.enc.on} {
		if b {
			fl |= 1 << k
		}
	}
	e.Byte(fl)
	e.Bytes([]byte(a.comment))
	e.Uvarint(uint64(len(a.vols)))
	for v := range a.vols {
		rs := a.volumeRanges(v)
		sum, err := indexfmt.Digest(a.vols[v].ra, a.vols[v].size, rs)
		if err != nil {
			return nil, err
		}
		e.Uvarint(uint64(a.vols[v].size))
		indexfmt.PutRanges(e, rs, sum)
		if all := a.allRanges(v); partialRanges(all) {
			if sum, err = indexfmt.DigestAll(a.vols[v].ra, a.vols[v].size, all); err != nil {
				return nil, err
			}
		}
		e.Raw(sum[:])
	}
	e.Uvarint(uint64(len(a.files)))
	for _, f := range a.files {
		if f.missing != nil || f.broken != nil {
			return nil, errs.Unsupported("RAR: an archive with a damaged or missing entry is not indexed")
		}
		e.Entry(f.e)
		e.Uvarint(uint64(len(f.parts)))
		for _, pt := range f.parts {
			e.Uvarint(uint64(pt.vol))
			e.Uvarint(uint64(pt.off))
			e.Uvarint(uint64(pt.size))
		}
		e.Byte(byte(f.version))
		e.Uvarint(uint64(f.algo))
		e.Varint(int64(f.method))
		e.Varint(f.dict)
		var b uint64
		for k, v := range []bool{f.solid, f.unknown, f.split, f.first, f.useMAC, f.hasCRC, f.isVersion, f.linkRead, f.copied} {
			if v {
				b |= 1 << k
			}
		}
		e.Uvarint(b)
		e.Uvarint(uint64(f.crypt))
		e.Bytes(f.salt)
		e.Raw(f.iv[:])
		e.Uvarint(uint64(f.lg2))
		e.Bytes(f.check)
		e.Uvarint(uint64(f.crc))
		e.Bytes(f.blake)
		e.Varint(int64(f.copyOf))
	}
	k5, k3 := a.provenKeys(withKeys)
	e.Uvarint(uint64(len(k5)))
	for _, k := range k5 {
		e.Bytes(k.salt)
		e.Byte(byte(k.lg2))
		e.Raw(k.k.Key[:])
		e.Raw(k.k.HashKey[:])
		e.Raw(k.k.Check[:])
	}
	e.Uvarint(uint64(len(k3)))
	for _, k := range k3 {
		e.Bytes(k.salt)
		e.Raw(k.k.Key[:])
		e.Raw(k.k.IV[:])
	}
	return e.B, nil
}

type key5 struct {
	salt []byte
	lg2  int
	k    *rarcrypto.Keys5
}

type key3 struct {
	salt []byte
	k    *rarcrypto.Keys3
}

// storedID names a key an index brought: no password is stored.
func storedID(salt []byte, lg2 int) string { return string(salt) + "\x00" + string(rune('0'+lg2)) }

// provenKeys lists the derived keys the archive has shown to be right,
// one per distinct salt and round count.
func (a *Archive) provenKeys(withKeys bool) ([]key5, []key3) {
	if !withKeys {
		return nil, nil
	}
	kr := &a.keys
	var k5 []key5
	var k3 []key3
	seen := map[string]bool{}
	for _, f := range a.files {
		id := storedID(f.salt, f.lg2)
		if seen[id] {
			continue
		}
		switch f.crypt {
		case cryptRAR5:
			var v *rarcrypto.Keys5
			if kr.pwCache != nil && kr.hpwOK {
				v = kr.key5Of(*kr.pwCache, f.salt, f.lg2)
			}
			if v == nil && f.check != nil {
				if c := kr.last5.k; c != nil && string(c.Check[:]) == string(f.check) {
					v = c
				}
				for _, c := range kr.keys5 {
					if v != nil {
						break
					}
					if string(c.Check[:]) == string(f.check) {
						v = c
						break
					}
				}
			}
			if v == nil {
				v = kr.stored5[id]
			}
			if v != nil {
				seen[id] = true
				k5 = append(k5, key5{f.salt, f.lg2, v})
			}
		case cryptRAR3:
			var v *rarcrypto.Keys3
			if kr.pwCache != nil && kr.hpwOK {
				v = kr.keys3[keyID(*kr.pwCache, f.salt, 18)]
			}
			if v == nil {
				v = kr.stored3[id]
			}
			if v != nil {
				seen[id] = true
				k3 = append(k3, key3{f.salt, v})
			}
		}
	}
	return k5, k3
}

// openIndex is Format.OpenIndex for RAR.
func openIndex(ra io.ReaderAt, size int64, payload []byte, cfg *arc.Config) (arc.Archive, error) {
	c, err := conf.ForIndex(size, cfg)
	if err != nil {
		return nil, err
	}
	a := newArchive(&c)
	p := a.p
	p.release() // no header is parsed
	ok := false
	defer func() {
		if !ok {
			a.closeVolumes()
		}
	}()
	jra, jsize, closers, err := p.joinSplit(ra, size, p.cfg.Name)
	a.closers = closers
	if err != nil {
		return nil, err
	}
	d := &indexfmt.Decoder{B: payload}
	ver := d.Byte("version")
	if d.Err == nil && ver != 1 && ver != persistVersion {
		return nil, errs.Unsupported("RAR index version %d", ver)
	}
	p.version = int(d.Byte("RAR version"))
	fl := d.Byte("flags")
	p.main.solid, p.main.locked, p.main.newNaming, p.enc.on = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0
	a.comment = d.String(1<<20, "comment")
	nv := d.Count(34, 1<<16, "volumes")
	if d.Err == nil && (p.version != 4 && p.version != 5 || fl > 15 || nv == 0) {
		d.Fail("archive flags")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	fulls := make([][32]byte, 0, nv)
	for v := 0; v < nv; v++ {
		vs := d.Uvarint("volume size")
		if d.Err != nil {
			return nil, d.Err
		}
		vol := volume{ra: jra, size: jsize, name: p.cfg.Name}
		if v > 0 {
			vra, vsize, name, err := p.openVolumeAfter(a.vols[v-1].name, v)
			if err != nil {
				return nil, engine.Stale("volume " + strconv.Itoa(v+1) + " cannot be opened: " + err.Error())
			}
			if cl, ok := vra.(io.Closer); ok {
				a.closers = append(a.closers, cl)
			}
			vol = volume{ra: vra, size: vsize, name: name}
		}
		if vs != uint64(vol.size) {
			return nil, engine.Stale("the size of volume " + strconv.Itoa(v+1) + " changed")
		}
		a.vols = append(a.vols, vol)
		if _, err := indexfmt.CheckRanges(d, vol.ra, vol.size); err != nil {
			return nil, err
		}
		var all [32]byte
		if ver > 1 {
			copy(all[:], d.Raw(32, "full digest"))
		}
		fulls = append(fulls, all)
	}
	lim := c.Bounds
	n := d.Count(indexfmt.MinEntrySize+24, int(min(lim.MaxEntries, 1<<40)), "files")
	if d.Err != nil {
		return nil, d.Err
	}
	if m := int64(n) * entryOverhead; m > lim.MaxHeaderMemory || m < 0 {
		return nil, errs.Limit("%d entries need %d bytes of index memory, above MaxHeaderMemory (%d)", n, m, lim.MaxHeaderMemory)
	}
	mem := int64(n) * entryOverhead
	ents := make([]arc.Entry, n)
	fs := make([]file, n)
	a.files = make([]*file, n)
	for i := 0; i < n && d.Err == nil; i++ {
		before := len(d.B)
		f := &fs[i]
		a.files[i] = f
		f.e = &ents[i]
		d.Entry(f.e, i, 1<<16)
		np := d.Count(3, 1<<16, "parts")
		if np > 0 {
			f.parts = make([]part, np)
		}
		for k := range f.parts {
			pv, off, sz := d.Uvarint("part volume"), d.Uvarint("part offset"), d.Uvarint("part size")
			if pv >= uint64(nv) || off > uint64(a.vols[min(pv, uint64(nv-1))].size) || sz > uint64(a.vols[min(pv, uint64(nv-1))].size)-off {
				d.Fail("part outside its volume")
				break
			}
			f.parts[k] = part{vol: int(pv), off: int64(off), size: int64(sz)}
		}
		f.version = int(d.Byte("container version"))
		f.algo = int(min(d.Uvarint("algorithm"), 1<<16))
		f.method = int(max(min(d.Varint("method"), 1<<16), -1))
		f.dict = d.Varint("dictionary")
		b := d.Uvarint("file flags")
		f.solid, f.unknown, f.split, f.first = b&pfSolid != 0, b&pfUnknown != 0, b&pfSplit != 0, b&pfFirst != 0
		f.useMAC, f.hasCRC, f.isVersion = b&pfUseMAC != 0, b&pfHasCRC != 0, b&pfIsVersion != 0
		f.linkRead, f.copied = b&pfLinkRead != 0, b&pfCopied != 0
		f.crypt = int(min(d.Uvarint("crypt"), 1<<8))
		f.salt = cloneOrNil(d.Bytes("salt"))
		copy(f.iv[:], d.Raw(16, "IV"))
		f.lg2 = int(min(d.Uvarint("KDF rounds"), 64))
		f.check = cloneOrNil(d.Bytes("check value"))
		f.crc = uint32(d.Uvarint("CRC"))
		f.blake = cloneOrNil(d.Bytes("BLAKE2sp"))
		f.copyOf = int(d.Varint("copy source"))
		if d.Err != nil {
			break
		}
		if f.version != 4 && f.version != 5 || f.dict < 0 || len(f.salt) > 64 || f.copyOf < -1 || f.copyOf >= i ||
			len(f.check) != 0 && len(f.check) != 8 || len(f.blake) != 0 && len(f.blake) != 32 {
			d.Fail("file fields")
			break
		}
		if mem += int64(before - len(d.B)); mem > lim.MaxHeaderMemory {
			return nil, errs.Limit("the RAR index needs more than MaxHeaderMemory (%d bytes)", lim.MaxHeaderMemory)
		}
	}
	n5 := d.Count(73, maxKeys, "RAR5 keys")
	for i := 0; i < n5 && d.Err == nil; i++ {
		salt := d.Bytes("key salt")
		lg2 := int(d.Byte("key rounds"))
		k := &rarcrypto.Keys5{}
		copy(k.Key[:], d.Raw(32, "key"))
		copy(k.HashKey[:], d.Raw(32, "hash key"))
		copy(k.Check[:], d.Raw(8, "check"))
		if a.keys.stored5 == nil {
			a.keys.stored5 = map[string]*rarcrypto.Keys5{}
		}
		a.keys.stored5[storedID(salt, lg2)] = k
	}
	n3 := d.Count(33, maxKeys, "RAR3 keys")
	for i := 0; i < n3 && d.Err == nil; i++ {
		salt := d.Bytes("key salt")
		k := &rarcrypto.Keys3{}
		copy(k.Key[:], d.Raw(16, "key"))
		copy(k.IV[:], d.Raw(16, "IV"))
		if a.keys.stored3 == nil {
			a.keys.stored3 = map[string]*rarcrypto.Keys3{}
		}
		a.keys.stored3[storedID(salt, 18)] = k
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	for _, f := range a.files {
		if f.e.Size > 0 && a.unpacked < 1<<62 {
			a.unpacked += min(f.e.Size, 1<<62)
		}
	}
	// The regions the open's digests left out, checked before the first
	// entry is acted on (computed then from the parts the index gives,
	// as ExportIndex computed them: reopening sorts nothing).
	a.ixCheck = indexfmt.NewLater(func() error {
		for v := range a.vols {
			all := a.allRanges(v)
			l := indexfmt.CheckLater(a.vols[v].ra, a.vols[v].size, all, fulls[v], partialRanges(all), "RAR volume "+strconv.Itoa(v+1))
			if err := l.Check(); err != nil {
				return err
			}
		}
		return nil
	})
	currentVersions(a.files) // as Open: an index made before the rule holds older flags
	a.list()
	ok = true
	return a, nil
}

func cloneOrNil(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// CheckEntry serves engine.EntryChecker: in an Archive opened from an
// index whose digests sampled its header regions (or hashed a long one
// by its ends), the first call digests all of them (once).
func (c *capable) CheckEntry(int) error { return c.ixCheck.Check() }
