package rar

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
	"github.com/go-unarc/unarc/rar/internal/unpack50"
)

// RAR 5.0 header types and flags (technote "General archive structure").
const (
	head5Main    = 1
	head5File    = 2
	head5Service = 3
	head5Crypt   = 4
	head5End     = 5

	hfl5Extra       = 0x0001 // extra area present
	hfl5Data        = 0x0002 // data area present
	hfl5SplitBefore = 0x0008 // data continues from the previous volume
	hfl5SplitAfter  = 0x0010 // data continues in the next volume

	mhd5Volume    = 0x0001
	mhd5VolNumber = 0x0002
	mhd5Solid     = 0x0004
	mhd5Locked    = 0x0010

	fhd5Dir         = 0x0001
	fhd5UnixTime    = 0x0002
	fhd5CRC         = 0x0004
	fhd5UnknownSize = 0x0008

	// Extra record types of file and service headers.
	fx5Crypt   = 1
	fx5Hash    = 2
	fx5Time    = 3
	fx5Version = 4
	fx5Redir   = 5
	fx5Owner   = 6

	// maxHeader5 bounds a RAR5 header: the technote limits it to 2 MiB.
	maxHeader5 = 2 << 20
)

// kdfMaxLg2 bounds the PBKDF2 round count (2^n) an archive may ask for:
// unrar's limit is 2^24, which costs seconds per salt.
var kdfMaxLg2 = rarcrypto.MaxLg2

// header5 is one raw RAR5 header after its size field.
type header5 struct {
	typ      uint64
	flags    uint64
	extra    []byte
	dataSize int64
	body     cursor
}

// readHeader5 reads and checks the next header, decrypting it when the
// archive's headers are encrypted (each one then starts with its own IV).
func (p *headerReader) readHeader5() (*header5, error) {
	// The header reader's scratch, not locals: read through an interface, they
	// would be allocated for every header.
	first := &p.hdrFirst
	var mode cipher.BlockMode
	var h []byte
	if p.enc.on {
		iv := &p.hdrIV
		if err := p.s.full(iv[:], "header IV"); err != nil {
			return nil, err
		}
		if err := p.s.full(first[:], "header"); err != nil {
			return nil, errs.EOF(err, "header")
		}
		var err error
		if mode, err = p.enc.cbc.Init(p.enc.key5.Key[:], iv[:]); err != nil {
			return nil, err
		}
		mode.CryptBlocks(first[:], first[:])
		c := cursor{b: first[4:]}
		size := c.vint()
		if c.bad || size == 0 || size > maxHeader5 {
			if p.enc.check == nil && !p.keys.hpwOK {
				return nil, fmt.Errorf("%w: headers do not decrypt", errs.ErrPassword)
			}
			return nil, errs.Corrupt("header size %d", size)
		}
		n := 4 + (12 - len(c.b)) + int(size) // CRC + vint + header
		padded := (n + 15) &^ 15
		if p.s.size >= 0 && int64(padded-16) > p.s.size-p.s.off {
			if p.enc.check == nil && !p.keys.hpwOK {
				return nil, fmt.Errorf("%w: headers do not decrypt (header size %d passes the end of the archive)", errs.ErrPassword, size)
			}
			return nil, errs.Truncated("header larger than the rest of the volume")
		}
		h = p.header(padded)
		copy(h, first[:])
		if err := p.s.full(h[16:], "header"); err != nil {
			if p.enc.check == nil && !p.keys.hpwOK {
				return nil, fmt.Errorf("%w: headers do not decrypt (header size %d passes the end of the archive)", errs.ErrPassword, size)
			}
			return nil, errs.EOF(err, "header")
		}
		mode.CryptBlocks(h[16:], h[16:])
		h = h[:n]
	} else {
		if err := p.s.full(first[:5], "header"); err != nil {
			return nil, err // io.EOF: physical end without an end header
		}
		// The size vint is 1–3 bytes (2 MiB); read what it needs.
		n := 5
		for first[n-1]&0x80 != 0 {
			if n == 8 {
				return nil, errs.Corrupt("header size")
			}
			if err := p.s.full(first[n:n+1], "header"); err != nil {
				return nil, errs.EOF(err, "header")
			}
			n++
		}
		c := cursor{b: first[4:n]}
		size := c.vint()
		if c.bad || size == 0 || size > maxHeader5 {
			if p.s.size >= 0 && p.s.size-p.s.off < 8 || p.s.size < 0 && p.s.short(8) {
				// Zero padding in the last bytes: unrar's "unexpected end of archive".
				return nil, errs.Truncated("last header")
			}
			return nil, errs.Corrupt("header size")
		}
		if p.s.size >= 0 && int64(size) > p.s.size-p.s.off {
			return nil, errs.Truncated("header larger than the rest of the volume")
		}
		h = p.header(n + int(size))
		copy(h, first[:n])
		if err := p.s.full(h[n:], "header"); err != nil {
			return nil, errs.EOF(err, "header")
		}
	}
	c := cursor{b: h[4:]}
	size := c.vint()
	body := c.b[:size]
	if crc32.ChecksumIEEE(h[4:len(h)-len(c.b)+int(size)]) != binary.LittleEndian.Uint32(h) {
		if p.enc.on && p.enc.check == nil && !p.keys.hpwOK {
			return nil, fmt.Errorf("%w: header checksum fails after decryption", errs.ErrPassword)
		}
		return nil, errs.Corrupt("RAR5 header CRC")
	}
	if p.enc.on {
		p.keys.hpwOK = true // a whole header decrypted: the password is right
	}
	// One header5 serves every header: the caller is done with one
	// before it reads the next (its body is in the header reader's buffer).
	hd := &p.hd5
	*hd = header5{body: cursor{b: body}}
	hd.typ = hd.body.vint()
	hd.flags = hd.body.vint()
	var extraSize uint64
	if hd.flags&hfl5Extra != 0 {
		extraSize = hd.body.vint()
	}
	if hd.flags&hfl5Data != 0 {
		hd.dataSize = hd.body.vintN(1 << 62)
	}
	if hd.body.bad || extraSize > uint64(len(hd.body.b)) {
		return nil, errs.Corrupt("RAR5 header fields (type %d, extra %d of %d)", hd.typ, extraSize, len(hd.body.b))
	}
	cut := len(hd.body.b) - int(extraSize)
	hd.extra = hd.body.b[cut:]
	hd.body.b = hd.body.b[:cut]
	return hd, nil
}

func (p *headerReader) main5() error {
	for {
		hd, err := p.readHeader5()
		if err != nil {
			return errs.EOF(err, "main header")
		}
		switch hd.typ {
		case head5Crypt:
			if err := p.crypt5(hd); err != nil {
				return err
			}
			continue
		case head5Main:
		default:
			return errs.Corrupt("RAR5 header type %d before the main header", hd.typ)
		}
		c := &hd.body
		fl := c.vint()
		p.main.volume = fl&mhd5Volume != 0
		p.main.solid = fl&mhd5Solid != 0
		p.main.locked = fl&mhd5Locked != 0
		if p.main.locked {
			p.warn.add(warnLocked, ErrLocked)
		}
		p.main.volNum = 0
		if fl&mhd5VolNumber != 0 {
			p.main.volNum = int(c.vintN(1 << 30))
		}
		p.main.firstVol = p.main.volNum == 0
		if c.bad {
			return errs.Corrupt("RAR5 main header")
		}
		// The extra area holds the locator (quick-open and recovery
		// offsets) and, from rar 7, archive metadata: neither is needed.
		return p.s.skip(hd.dataSize, "main header data")
	}
}

// crypt5 reads the archive encryption header (-hp) and derives the key
// that decrypts every later header.
func (p *headerReader) crypt5(hd *header5) error {
	c := &hd.body
	ver := c.vint()
	fl := c.vint()
	lg2 := int(c.u8())
	salt := c.bytes(rarcrypto.SaltSize5)
	check, sum := c.pswCheck(fl)
	if c.bad {
		return errs.Corrupt("RAR5 encryption header")
	}
	if ver != 0 {
		return errs.Unsupported("RAR5 encryption version %d", ver)
	}
	if lg2 > kdfMaxLg2 {
		return errs.Unsupported("RAR5 KDF count 2^%d", lg2)
	}
	pw, err := p.keys.password(nil)
	if err != nil {
		return fmt.Errorf("encrypted headers: %w", err)
	}
	k, err := p.keys.derive5(pw, salt, lg2)
	if err != nil {
		return err
	}
	if check != nil && rarcrypto.CheckSum5(check, sum) {
		if string(k.Check[:]) != string(check) {
			p.keys.pwCache = nil
			return fmt.Errorf("%w (archive headers)", errs.ErrPassword)
		}
		p.enc.check = clone(check)
	}
	p.enc.key5, p.enc.on = k, true
	return nil
}

// noEnd marks the warning of a volume that ends at a header boundary
// without its end-of-archive record as one a writer may leave out (rar
// -en; unrar says "All OK"), unless the headers are encrypted: there
// unrar reports "Unexpected end of archive", and so do we (the warning
// stays a plain truncation).
func (p *headerReader) noEnd(err error) error {
	if p.enc.on {
		return err
	}
	return errs.NoEnd(err)
}

// next5 is next4 for RAR5 headers: the steps look alike, the headers
// and the end-of-volume rules they apply do not.
func (p *headerReader) next5() (*file, error) {
	hd, err := p.readHeader5()
	if err == io.EOF {
		// rar ends a RAR5 volume with an end-of-archive header: its
		// absence may mean the file was cut at a header boundary, or
		// a writer left it out. What precedes is whole, and unrar
		// takes it without a word: a warning, not an error, as RAR4.
		p.done = true
		p.warn.add(warnTruncated, p.noEnd(errs.Truncated("RAR5 volume ends without its end-of-archive header")))
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	p.pending = hd.dataSize
	switch hd.typ {
	case head5File:
		return p.entry(hd.flags&hfl5SplitBefore == 0, func() (*file, error) { return p.file5(hd, false) })
	case head5Service:
		f, err := p.file5(hd, true)
		if err != nil {
			return nil, err
		}
		// file5 sets f.first and f.split from the split flags.
		if err := p.service(f, hd.dataSize); err != nil {
			return nil, err
		}
		// QO, ACL, STM, RR and unknown service headers are skipped.
	case head5End:
		fl := hd.body.vint()
		p.more = fl&1 != 0
		p.done = true
		return nil, io.EOF
	case head5Crypt, head5Main:
		return nil, errs.Corrupt("RAR5 header type %d repeated", hd.typ)
	default:
		// Unknown header types are skipped with their data (technote:
		// readers skip what they do not know).
	}
	return nil, nil
}

// file5 parses a file or service header (they share the layout).
func (p *headerReader) file5(hd *header5, service bool) (*file, error) {
	c := &hd.body
	ff := c.vint()
	unp := c.vint()
	attr := c.vint()
	var mtime uint32
	if ff&fhd5UnixTime != 0 {
		mtime = c.u32()
	}
	f := &file{version: 5, copyOf: -1, first: hd.flags&hfl5SplitBefore == 0}
	if ff&fhd5CRC != 0 {
		f.crc, f.hasCRC = c.u32(), true
	}
	ci := c.vint()
	host := c.vint()
	nameLen := c.vint()
	name := c.bytes(nameLen)
	if c.bad {
		return nil, errs.Corrupt("RAR5 file header")
	}
	e := &arc.Entry{Name: string(name), PackedSize: hd.dataSize}
	f.e = e
	f.unknown = ff&fhd5UnknownSize != 0
	if unp > 1<<62 {
		return nil, errs.Corrupt("RAR5 unpacked size")
	}
	e.Size = int64(unp)
	if f.unknown {
		e.Size = -1
	}
	f.split = hd.flags&hfl5SplitAfter != 0
	if mtime != 0 {
		e.Modified = time.Unix(int64(mtime), 0).UTC()
	}
	// Compression information (technote "File header"): bits 0–5
	// algorithm version (0: RAR 5.0, 1: RAR 7.0), bit 6 solid, bits 7–9
	// method, bits 10+ dictionary 128 KiB << n (RAR7: 5 bits plus a
	// fraction in bits 15–19).
	ver, method, _, dict, err := unpack50.CompInfo(ci)
	f.solid = ci&0x40 != 0 && !service
	f.method, f.dict = method, dict
	switch {
	case err != nil:
		f.algo = -1 // unsupported: reported when the entry is opened
	case ver == 1:
		f.algo = 70
	default:
		f.algo = 50
	}
	e.Method = f.methodName()
	e.Solid = f.solid
	e.Index = -1

	dir := ff&fhd5Dir != 0
	switch host {
	case 1: // Unix: attr is st_mode
		e.Mode = meta.UnixEntryMode(uint32(attr))
	default: // Windows attributes
		e.Mode = meta.WinMode(uint32(attr))
	}
	if dir || e.Mode.IsDir() {
		// A mode that states a directory (a Unix st_mode of that type,
		// or Windows attributes with the directory bit) is kept as the
		// archive says, 0000 included, as unrar applies it; only bits
		// meant for a file on an entry the flag alone makes a directory
		// get the search bits.
		if !e.Mode.IsDir() {
			e.Mode = e.Mode&^fs.ModeType | fs.ModeDir
			if e.Mode.Perm() == 0o644 || e.Mode.Perm() == 0o444 {
				e.Mode |= 0o111
			}
		}
		dir = true
		e.Size = 0
	}
	if err := p.extra5(f, hd.extra); err != nil {
		return nil, err
	}
	f.setDigest()
	f.parts = append(f.parts, part{vol: p.vol, off: p.s.off, size: hd.dataSize})
	return f, nil
}

// Hash kinds of RAR5 entries whose stored checksum is converted to a MAC
// with the key derived from the password (rar -p: the encryption record's
// hash-MAC flag; unrar ConvertHashToMAC). Reading the entry checks the
// content against them like a plain checksum, so the entry is verifiable.
const (
	hashCRC32MAC    = "CRC32-MAC"    // HMAC-SHA256 of the CRC-32, folded to 4 bytes
	hashBLAKE2spMAC = "BLAKE2sp-MAC" // HMAC-SHA256 of the BLAKE2sp digest
)

// setDigest fills the entry's checksum fields from what f stores: a plain
// CRC-32 is HasCRC32/CRC32, any other digest (BLAKE2sp, or a checksum
// turned into a MAC) is HashKind/Hash with the stored bytes.
func (f *file) setDigest() {
	e := f.e
	e.HasCRC32, e.CRC32, e.HashKind, e.Hash = false, 0, "", nil
	if f.hasCRC && !f.useMAC {
		e.HasCRC32, e.CRC32 = true, f.crc
	}
	switch {
	case f.blake != nil && f.useMAC:
		e.HashKind, e.Hash = hashBLAKE2spMAC, f.blake
	case f.blake != nil:
		e.HashKind, e.Hash = "BLAKE2sp", f.blake
	case f.hasCRC && f.useMAC:
		binary.BigEndian.PutUint32(f.crcMAC[:], f.crc)
		e.HashKind, e.Hash = hashCRC32MAC, f.crcMAC[:]
	}
}

// extra5 parses the extra records of a file or service header. A header
// may repeat a record type (up to 2 MiB of records): the last one wins, as
// in unrar, and nothing is built per record — fields are remembered as
// slices of the header buffer and materialized once after the loop, so the
// cost is linear in the header size whatever the records say.
func (p *headerReader) extra5(f *file, extra []byte) error {
	e := f.e
	var (
		version     uint64
		salt, check []byte
		blake       []byte
		target      []byte
		haveLink    bool
		link        arc.LinkKind
		winTarget   bool
	)
	x := cursor{b: extra}
	for len(x.b) > 0 {
		size := x.vint()
		rec := x.bytes(size)
		if x.bad {
			return errs.Corrupt("RAR5 extra record size")
		}
		c := cursor{b: rec}
		typ := c.vint()
		switch typ {
		case fx5Crypt:
			ver := c.vint()
			fl := c.vint()
			lg2 := int(c.u8())
			s := c.bytes(rarcrypto.SaltSize5)
			iv := c.bytes(rarcrypto.IVSize)
			chk, sum := c.pswCheck(fl)
			if c.bad {
				return errs.Corrupt("RAR5 encryption record")
			}
			e.Encrypted = true
			f.crypt = cryptRAR5
			if ver != 0 || lg2 > kdfMaxLg2 {
				f.crypt = -1 // unsupported; reported when opened
			}
			f.lg2, salt = lg2, s
			copy(f.iv[:], iv)
			check = nil
			if chk != nil && rarcrypto.CheckSum5(chk, sum) {
				check = chk
			}
			f.useMAC = fl&2 != 0
		case fx5Hash:
			if c.vint() == 0 { // BLAKE2sp
				blake = c.bytes(32)
			}
		case fx5Time:
			fl := c.vint()
			unix := fl&1 != 0
			var ts [3]time.Time
			var secs [3]int64
			var have [3]bool
			for i := 0; i < 3; i++ {
				if fl&(2<<i) == 0 {
					continue
				}
				have[i] = true
				if unix {
					secs[i] = int64(c.u32())
					ts[i] = time.Unix(secs[i], 0).UTC()
				} else {
					ts[i] = meta.Filetime(c.u64())
				}
			}
			if unix && fl&0x10 != 0 {
				for i := 0; i < 3; i++ {
					if have[i] {
						ns := c.u32()
						if ns < 1e9 {
							ts[i] = time.Unix(secs[i], int64(ns)).UTC()
						}
					}
				}
			}
			if c.bad {
				continue // a damaged time record does not make the entry unreadable
			}
			if have[0] {
				e.Modified = ts[0]
			}
			if have[1] {
				e.Created = ts[1]
			}
			if have[2] {
				e.Accessed = ts[2]
			}
		case fx5Version:
			// File version (-ver): unrar appends ";n" to the name once.
			c.vint()
			if v := c.vint(); !c.bad && v > 0 {
				version = v
				f.isVersion = true
			}
		case fx5Redir:
			kind := c.vint()
			c.vint() // flags: target is a directory
			n := c.vint()
			t := c.bytes(n)
			if c.bad {
				return errs.Corrupt("RAR5 redirection record")
			}
			var k arc.LinkKind
			win := false
			switch kind {
			case 1:
				k = arc.LinkSymlink
			case 2:
				k, win = arc.LinkSymlink, true
			case 3:
				k, win = arc.LinkJunction, true
			case 4:
				k = arc.LinkHardlink
			case 5:
				k = arc.LinkCopy
			default:
				continue // unknown redirection: an ordinary entry
			}
			haveLink, link, target, winTarget = true, k, t, win
		case fx5Owner:
			// User and group names: not part of arc.Entry.
		}
	}
	if version > 0 {
		e.Name = e.Name + ";" + strconv.FormatUint(version, 10)
	}
	if salt != nil {
		f.salt = clone(salt)
	}
	if check != nil {
		f.check = clone(check)
	}
	if blake != nil {
		f.blake = clone(blake)
	}
	if haveLink {
		t := string(target)
		if winTarget {
			t = winLink(t)
		}
		e.Link, e.LinkTarget = link, t
		if link == arc.LinkSymlink || link == arc.LinkJunction {
			e.Mode = e.Mode&^fs.ModeType | fs.ModeSymlink
		}
	}
	return nil
}

// winLink turns a stored Windows link target into '/' form, dropping the
// NT "\??\" prefix of absolute targets.
func winLink(t string) string {
	t = strings.TrimPrefix(t, `\??\`)
	return strings.ReplaceAll(t, `\`, "/")
}

// clone copies b out of the reusable header buffer (nil stays nil).
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}
