package rar

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
)

// RAR 1.5–4.x block types and flags (RAR 4.x technote, "Block formats").
const (
	head4Mark    = 0x72
	head4Main    = 0x73
	head4File    = 0x74
	head4Comm    = 0x75 // old comment block
	head4Sub     = 0x77 // old subblock
	head4Protect = 0x78 // old recovery record
	head4NewSub  = 0x7a // service header (CMT, ACL, STM, RR, …)
	head4End     = 0x7b
	hfl4LongBlk  = 0x8000
	mhd4Volume   = 0x0001
	mhd4Comment  = 0x0002
	mhd4Locked   = 0x0004
	mhd4Solid    = 0x0008
	mhd4NewNum   = 0x0010
	mhd4Protect  = 0x0040 // recovery record present
	mhd4Password = 0x0080
	mhd4FirstVol = 0x0100

	lhdSplitBefore = 0x0001
	lhdSplitAfter  = 0x0002
	lhdPassword    = 0x0004
	lhdSolid       = 0x0010
	lhdWindowMask  = 0x00e0
	lhdDirectory   = 0x00e0
	lhdLarge       = 0x0100
	lhdUnicode     = 0x0200
	lhdSalt        = 0x0400
	lhdVersion     = 0x0800 // an older file version (rar -ver), named "name;n"
	lhdExtTime     = 0x1000

	earcNextVolume = 0x0001
)

// maxHeaderSalts bounds how many times the encrypted headers of one
// archive may change their salt.
const maxHeaderSalts = 16

// header4 is one RAR 1.5–4.x block header.
type header4 struct {
	typ     byte
	flags   uint16
	body    cursor // after the 7 common bytes
	addSize int64  // data area size for long blocks
	badCRC  bool   // a file or service header whose CRC does not match
}

// readHeader4 reads the next block header and checks its CRC16 (the low
// half of a CRC32 from the type byte). With encrypted headers each block
// is preceded by an 8-byte salt and padded to the AES block size; a CRC
// mismatch there means the password is wrong.
func (p *headerReader) readHeader4() (*header4, error) {
	var h []byte
	if p.enc.on {
		var salt [8]byte
		if err := p.s.full(salt[:], "header salt"); err != nil {
			return nil, err
		}
		pw, err := p.keys.password(nil)
		if err != nil {
			return nil, fmt.Errorf("encrypted headers: %w", err)
		}
		// rar writes one salt for all headers; a new salt per header
		// would cost a 2^18-round derivation each (a denial of service).
		if p.enc.salts++; p.enc.salts > 1 && string(salt[:]) != p.enc.salt {
			if p.enc.distinct++; p.enc.distinct > maxHeaderSalts {
				return nil, errs.Limit("more than %d distinct header salts", maxHeaderSalts)
			}
		}
		p.enc.salt = string(salt[:])
		k, err := p.keys.derive3(pw, salt[:])
		if err != nil {
			return nil, err
		}
		b, _ := aes.NewCipher(k.Key[:])
		mode := cipher.NewCBCDecrypter(b, k.IV[:])
		var first [16]byte
		if err := p.s.full(first[:], "header"); err != nil {
			return nil, errs.EOF(err, "header")
		}
		mode.CryptBlocks(first[:], first[:])
		size := int(binary.LittleEndian.Uint16(first[5:]))
		if size < 7 || first[2] < head4Mark || first[2] > head4End {
			return nil, p.badKey4("block header")
		}
		padded := (size + 15) &^ 15
		h = p.header(padded)
		copy(h, first[:])
		if err := p.s.full(h[16:], "header"); err != nil {
			// A wrong key makes a random size; so does a cut archive.
			// Once a header has decrypted, or when this one's first block
			// is one a wrong key almost never yields, it is a cut.
			if p.keys.hpwOK || plausible4(first[:]) {
				return nil, errs.EOF(err, "encrypted header")
			}
			return nil, fmt.Errorf("%w: headers do not decrypt (header size %d passes the end of the archive)", errs.ErrPassword, size)
		}
		mode.CryptBlocks(h[16:], h[16:])
		h = h[:size]
		if uint16(crc32.ChecksumIEEE(h[2:])) != binary.LittleEndian.Uint16(h) {
			return nil, p.badKey4("header checksum")
		}
		p.keys.hpwOK = true // a whole header decrypted: the password is right
	} else {
		var fixed [7]byte
		if err := p.s.full(fixed[:], "header"); err != nil {
			return nil, err
		}
		size := int(binary.LittleEndian.Uint16(fixed[5:]))
		if size < 7 {
			return nil, errs.Corrupt("RAR block size %d", size)
		}
		h = p.header(size)
		copy(h, fixed[:])
		if err := p.s.full(h[7:], "header"); err != nil {
			return nil, errs.EOF(err, "header")
		}
	}
	hd := &header4{typ: h[2], flags: binary.LittleEndian.Uint16(h[3:]), body: cursor{b: h[7:]}}
	if !p.enc.on && !crcOK4(h) {
		// unrar refuses an archive whose main header is broken, and for
		// a file or service header warns ("file header is corrupt") and
		// goes on. So do we: the entry is listed but cannot be read
		// (unrar still extracts its data and checks the data CRC; we
		// refuse it, as its sizes, name and flags are unverified), and
		// the next blocks are read. An old recovery record (0x78) is
		// skipped with a warning, as unrar does: its data size is
		// unverified, but the next header's CRC shows whether the skip
		// landed on a block. Any other block is corrupt.
		if hd.typ != head4File && hd.typ != head4NewSub && hd.typ != head4Protect {
			return nil, errs.Corrupt("RAR block header CRC (block type %#x)", hd.typ)
		}
		hd.badCRC = true
	}
	// Old recovery records (0x78) and subblocks (0x77) always carry a
	// data size, whether or not they set LONG_BLOCK (unrar ReadHeader15
	// reads it for both); other blocks only with the flag.
	if hd.flags&hfl4LongBlk != 0 || hd.typ == head4File || hd.typ == head4NewSub ||
		hd.typ == head4Protect || hd.typ == head4Sub {
		if len(h) < 11 {
			return nil, errs.Corrupt("RAR block too short")
		}
		hd.addSize = int64(binary.LittleEndian.Uint32(h[7:]))
	}
	return hd, nil
}

// crcOK4 checks a block header's CRC16 (the low half of the CRC-32 from
// the type byte) over the range unrar's ReadHeader15 checks: a main header
// with an embedded RAR 2.x comment and an old comment block (0x75) are
// checked over their 13 fixed bytes only (the comment has a CRC of its
// own); old AV (0x76) and signature (0x79) blocks are not checked; every
// other block over its whole header.
func crcOK4(h []byte) bool {
	want := binary.LittleEndian.Uint16(h)
	fl := binary.LittleEndian.Uint16(h[3:])
	switch h[2] {
	case 0x76, 0x79, head4Sub:
		// unrar also checks old subblocks (0x77), but rar 2.x wrote the
		// Unix owner subblock with a CRC over another range (the corpus
		// has one that unrar extracts without a word). It is skipped
		// whatever it holds, so it is not checked.
		return true
	case head4Main, head4Comm:
		if (h[2] == head4Comm || fl&mhd4Comment != 0) && len(h) >= 13 {
			return uint16(crc32.ChecksumIEEE(h[2:13])) == want
		}
	case head4File:
		// RAR 1.5–2.x file headers with an embedded file comment (flag
		// 0x08) have a CRC over the fields before the comment, which
		// unrar checks against a partial read; the data CRC still is
		// checked. Not checked here.
		if fl&0x0008 != 0 && len(h) > 24 && h[24] < 29 {
			return true
		}
	}
	return uint16(crc32.ChecksumIEEE(h[2:])) == want
}

// plausible4 reports whether the first decrypted 16 bytes of a block
// header look like what rar writes, beyond the type and size range that
// readHeader4 checks first: a file or service header has the long-block
// flag, room for its fixed fields and a known host OS; an end block is
// small. A wrong key passes this about once in 10^5 tries, so a header
// that does and then runs past the end of the input is a truncation.
func plausible4(b []byte) bool {
	flags := binary.LittleEndian.Uint16(b[3:])
	size := binary.LittleEndian.Uint16(b[5:])
	switch b[2] {
	case head4File, head4NewSub:
		return flags&hfl4LongBlk != 0 && size >= 32 && b[15] <= 5
	case head4End:
		return size >= 7 && size <= 32
	}
	return false
}

// badKey4 is the error of an encrypted header that does not decrypt:
// a wrong password until one header has decrypted under it, damage after.
func (p *headerReader) badKey4(what string) error {
	if p.keys.hpwOK {
		return errs.Corrupt("encrypted %s", what)
	}
	return fmt.Errorf("%w: headers do not decrypt (%s)", errs.ErrPassword, what)
}

func (p *headerReader) main4() error {
	for {
		hd, err := p.readHeader4()
		if err != nil {
			return errs.EOF(err, "main header")
		}
		if hd.typ == head4Mark {
			continue
		}
		if hd.typ != head4Main {
			return errs.Corrupt("RAR block type %#x before the main header", hd.typ)
		}
		fl := hd.flags
		p.main.volume = fl&mhd4Volume != 0
		p.main.solid = fl&mhd4Solid != 0
		p.main.locked = fl&mhd4Locked != 0
		if p.main.locked {
			p.warn.add(warnLocked, ErrLocked)
		}
		if fl&mhd4Protect != 0 {
			p.warn.add(warnRecovery, ErrRecoveryRecord)
		}
		p.main.newNaming = fl&mhd4NewNum != 0
		p.main.firstVol = fl&mhd4FirstVol != 0 || !p.main.volume
		c := &hd.body
		c.u16() // HighPosAV
		c.u32() // PosAV
		if fl&0x0200 != 0 {
			c.u8() // EncryptVer
		}
		if fl&mhd4Comment != 0 && !p.haveCmt {
			p.oldComment(c)
		}
		if fl&mhd4Password != 0 {
			if _, err := p.keys.password(nil); err != nil {
				return fmt.Errorf("encrypted headers: %w", err)
			}
			p.enc.on = true
		}
		if hd.flags&hfl4LongBlk != 0 {
			return p.s.skip(hd.addSize, "main header data")
		}
		return nil
	}
}

// oldComment reads a RAR 1.5–2.x comment embedded in the main header:
// a 13-byte comment block header (type 0x75, unpacked size, version,
// method, CRC16) then the comment, kept when it is stored.
func (p *headerReader) oldComment(c *cursor) {
	ch := cursor{b: c.b}
	ch.u16()
	if ch.u8() != head4Comm {
		return
	}
	ch.u16()
	size := int(ch.u16())
	unp := int(ch.u16())
	ch.u8()
	method := ch.u8()
	cmtCRC := ch.u16()
	if ch.bad || size < 13 {
		return
	}
	data := ch.bytes(uint64(size - 13))
	if ch.bad {
		return
	}
	if method == 0x30 && len(data) >= unp {
		// The comment's own CRC (the block's second): unrar reports a
		// mismatch as a broken comment and shows none.
		if uint16(crc32.ChecksumIEEE(data[:unp])) != cmtCRC {
			p.warn.add(warnBrokenHeader, fmt.Errorf("%w: the archive comment's CRC does not match", errs.ErrCorrupt))
			return
		}
		p.comment, p.haveCmt = string(data[:unp]), true
	}
	// Packed old comments are dropped: unrar 6 reports them corrupt too.
}

// skipData skips the data area of the header before, if any.
func (p *headerReader) skipData() error {
	if p.pending > 0 {
		if err := p.s.skip(p.pending, "data area"); err != nil {
			return err
		}
		p.pending = 0
	}
	return nil
}

// next4 reads one RAR4 block and acts on it: it returns the entry of a
// file header, io.EOF at the volume's end, or nil, nil for a block that
// is no entry (next reads on).
func (p *headerReader) next4() (*file, error) {
	hd, err := p.readHeader4()
	if err == io.EOF {
		// RAR 2.0 and later end every volume with an end-of-archive
		// block: without it the file was cut at a block boundary
		// (unrar: "unexpected end of archive"). The entries before
		// are complete, so this is a warning, not an error.
		p.done = true
		if p.endBlock4 || !p.sawBlock4 {
			p.warn.add(warnTruncated, p.noEnd(errs.Truncated("RAR volume ends without its end-of-archive block")))
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	p.pending = hd.addSize
	p.sawBlock4 = true
	switch hd.typ {
	case head4File:
		return p.entry(hd.flags&lhdSplitBefore == 0 || hd.badCRC, func() (*file, error) {
			f, err := p.file4(hd, false)
			if err == nil && hd.badCRC {
				// Listed as an entry of its own whatever its (unverified)
				// flags say, so the damage is seen, never dropped.
				f.first, f.split, f.isVersion = true, false, false
				f.broken = errs.Corrupt("RAR file header CRC mismatch")
				p.warn.add(warnBrokenHeader, fmt.Errorf("%w: a file header's CRC does not match (%s)", errs.ErrCorrupt, f.e.Name))
			}
			return f, err
		})
	case head4NewSub:
		f, err := p.file4(hd, true)
		if err != nil {
			return nil, err
		}
		if hd.badCRC {
			p.warn.add(warnBrokenHeader, fmt.Errorf("%w: a service header's CRC does not match", errs.ErrCorrupt))
			return nil, nil // its data area is skipped
		}
		if err := p.service(f, hd.addSize); err != nil {
			return nil, err
		}
	case head4End:
		p.more = hd.flags&earcNextVolume != 0
		p.done = true
		return nil, io.EOF
	case head4Main, head4Mark:
		return nil, errs.Corrupt("RAR block type %#x repeated", hd.typ)
	case head4Protect:
		if hd.badCRC {
			// Recovery data is no entry's: skipping it cannot change
			// what is extracted, so the warning is a notice.
			p.warn.add(warnBrokenRecovery, errs.Notice(fmt.Errorf("%w: the recovery record's header CRC does not match; it is skipped", errs.ErrCorrupt)))
			return nil, nil // its data area is skipped
		}
		p.warn.add(warnRecovery, ErrRecoveryRecord)
	default:
		// Old comments, AV, subblocks: skipped.
	}
	return nil, nil
}

// file4 parses a file header or a service header (same layout).
func (p *headerReader) file4(hd *header4, service bool) (*file, error) {
	c := &hd.body
	fl := hd.flags
	pack := int64(c.u32())
	unp := int64(c.u32())
	host := c.u8()
	crc := c.u32()
	ftime := c.u32()
	ver := c.u8()
	method := c.u8()
	nameLen := c.u16()
	attr := c.u32()
	if fl&lhdLarge != 0 {
		pack |= int64(c.u32()) << 32
		unp |= int64(c.u32()) << 32
	}
	rawName := c.bytes(uint64(nameLen))
	if c.bad {
		return nil, errs.Corrupt("RAR file header")
	}
	p.pending = pack
	if ver >= 29 || service || fl&lhdExtTime != 0 {
		// rar 2.9 and later (the writers of v29 data, service headers and
		// extended times) always end a volume with the end block; rar
		// 1.5–2.x archives often have none.
		p.endBlock4 = true
	}
	f := &file{version: 4, copyOf: -1, first: fl&lhdSplitBefore == 0, split: fl&lhdSplitAfter != 0}
	e := &arc.Entry{PackedSize: pack, Size: unp, Index: -1}
	f.e = e
	if unp < 0 || unp == 0xffffffff && fl&lhdLarge == 0 && false {
		return nil, errs.Corrupt("RAR file size")
	}
	f.crc, f.hasCRC = crc, true
	f.algo = int(ver)
	f.method = int(method) - 0x30
	if f.method < 0 || f.method > 5 {
		f.method = -1
	}
	f.solid = fl&lhdSolid != 0 && !service
	f.isVersion = fl&lhdVersion != 0
	f.dict = 0x10000 << ((fl & lhdWindowMask) >> 5)
	// RAR 1.5–4.x stores '\\' as the path separator whatever the host.
	e.Name = strings.ReplaceAll(decodeName4(rawName, fl&lhdUnicode != 0), "\\", "/")
	if fl&lhdSalt != 0 {
		f.salt = clone(c.bytes(8))
	}
	if fl&lhdPassword != 0 {
		e.Encrypted = true
		// The cipher follows the unpack version, as in unrar's
		// ReadHeader15: 13 and 15 their own ciphers, 20 and 26 RAR 2.0's,
		// any other AES (RAR 2.9).
		switch ver {
		case 13:
			f.crypt = cryptRAR13
		case 15:
			f.crypt = cryptRAR15
		case 20, 26:
			f.crypt = cryptRAR20
		default:
			f.crypt = cryptRAR3
		}
	}
	e.Modified = meta.DOSTime32(ftime)
	if c.bad {
		return nil, errs.Corrupt("RAR file header")
	}
	if fl&lhdExtTime != 0 {
		// A damaged extended time leaves the DOS time (unrar does the same).
		extTime4(c, e, ftime)
	}
	// Host OS: 0 MS-DOS, 1 OS/2, 2 Win32, 3 Unix, 4 Mac OS, 5 BeOS.
	dir := fl&lhdWindowMask == lhdDirectory
	if host == 3 || host == 5 {
		e.Mode = meta.UnixEntryMode(attr)
		if e.Mode&fs.ModeSymlink != 0 {
			e.Link = arc.LinkSymlink
		}
	} else {
		e.Mode = meta.WinMode(attr)
	}
	if dir || e.Mode.IsDir() {
		// A mode that states a directory (a Unix st_mode of that type,
		// or Windows attributes with the directory bit) is kept as the
		// archive says, 0000 included, as unrar applies it; only bits
		// meant for a file on an entry the flags alone make a
		// directory get the search bits.
		if !e.Mode.IsDir() {
			e.Mode = e.Mode&^fs.ModeType | fs.ModeDir
			if e.Mode.Perm()&0o700 == 0o600 || e.Mode.Perm() == 0o444 {
				e.Mode |= 0o111
			}
		}
		dir = true
		e.Link = arc.LinkNone
		f.dict = 0
		e.Size = 0
	}
	e.Solid = f.solid
	e.Method = f.methodName()
	e.HasCRC32, e.CRC32 = !dir, crc
	f.parts = append(f.parts, part{vol: p.vol, off: p.s.off, size: pack})
	return f, nil
}

// decodeName4 decodes a RAR 2.x–4.x name: plain bytes, or with the
// Unicode flag either UTF-8 or "ASCII\0packed UTF-16" (unrar
// EncodeFileName::Decode).
func decodeName4(raw []byte, unicode bool) string {
	if !unicode {
		return string(raw)
	}
	z := -1
	for i, b := range raw {
		if b == 0 {
			z = i
			break
		}
	}
	if z < 0 {
		return string(raw) // UTF-8
	}
	name, enc := raw[:z], raw[z+1:]
	if len(enc) == 0 {
		return string(name)
	}
	out := make([]uint16, 0, len(name))
	high := uint16(enc[0])
	pos := 1
	var flags byte
	bits := 0
	maxLen := max(len(name), 1) * 2
	for pos < len(enc) && len(out) < maxLen {
		if bits == 0 {
			flags = enc[pos]
			pos++
			bits = 8
		}
		switch flags >> 6 {
		case 0:
			if pos >= len(enc) {
				break
			}
			out = append(out, uint16(enc[pos]))
			pos++
		case 1:
			if pos >= len(enc) {
				break
			}
			out = append(out, uint16(enc[pos])+high<<8)
			pos++
		case 2:
			if pos+1 >= len(enc) {
				pos = len(enc)
				break
			}
			out = append(out, uint16(enc[pos])|uint16(enc[pos+1])<<8)
			pos += 2
		case 3:
			if pos >= len(enc) {
				break
			}
			n := int(enc[pos])
			pos++
			if n&0x80 != 0 {
				if pos >= len(enc) {
					break
				}
				corr := enc[pos]
				pos++
				for n = n&0x7f + 2; n > 0 && len(out) < len(name); n-- {
					out = append(out, uint16(name[len(out)]+corr)|high<<8)
				}
			} else {
				for n += 2; n > 0 && len(out) < len(name); n-- {
					out = append(out, uint16(name[len(out)]))
				}
			}
		}
		flags <<= 2
		bits -= 2
	}
	var b strings.Builder
	for _, r := range utf16.Decode(out) {
		if r == 0 {
			break
		}
		b.WriteRune(r)
	}
	s := b.String()
	if !utf8.ValidString(s) {
		return string(name)
	}
	return s
}

// extTime4 reads the extended time field: a 16-bit flag word, 4 bits per
// time (mtime, ctime, atime, arctime): bit 3 present, bit 2 add one
// second, bits 0–1 count of extra 100 ns bytes; times other than mtime
// first carry their own DOS time.
func extTime4(c *cursor, e *arc.Entry, mtime uint32) {
	fl := c.u16()
	for i := 0; i < 4; i++ {
		m := fl >> ((3 - i) * 4)
		if m&8 == 0 {
			continue
		}
		dt := mtime
		if i != 0 {
			dt = c.u32()
		}
		t := meta.DOSTime32(dt)
		if m&4 != 0 {
			t = t.Add(time.Second)
		}
		n := int(m & 3)
		var frac uint32
		for j := 0; j < n; j++ {
			frac |= uint32(c.u8()) << ((j + 3 - n) * 8)
		}
		if frac < 1e7 {
			t = t.Add(time.Duration(frac) * 100)
		}
		switch i {
		case 0:
			e.Modified = t
		case 1:
			e.Created = t
		case 2:
			e.Accessed = t
		}
	}
}
