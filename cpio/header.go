package cpio

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
)

// kind is one of the four header formats.
type kind uint8

const (
	kindBinLE kind = iota + 1 // old binary, little-endian (magic c7 71)
	kindBinBE                 // old binary, big-endian (magic 71 c7)
	kindODC                   // portable ASCII, "070707", octal fields
	kindNewc                  // SVR4 "070701", hex fields
	kindCRC                   // SVR4 "070702", with the data's byte sum
)

func (k kind) String() string {
	switch k {
	case kindBinLE, kindBinBE:
		return "bin"
	case kindODC:
		return "odc"
	case kindNewc:
		return "newc"
	case kindCRC:
		return "crc"
	}
	return "unknown"
}

// Header sizes before the name, and the alignment of header+name and of
// the data.
const (
	binSize  = 26
	odcSize  = 76
	newcSize = 110
	trailer  = "TRAILER!!!"
)

func (k kind) align() int64 {
	switch k {
	case kindBinLE, kindBinBE:
		return 2
	case kindNewc, kindCRC:
		return 4
	}
	return 1
}

func (k kind) headerSize() int64 {
	switch k {
	case kindBinLE, kindBinBE:
		return binSize
	case kindODC:
		return odcSize
	}
	return newcSize
}

// kindOf reports the format whose magic starts b (at least 6 bytes for
// the ASCII ones, 2 for binary), or 0.
func kindOf(b []byte) kind {
	if len(b) >= 6 && string(b[:5]) == "07070" {
		switch b[5] {
		case '1':
			return kindNewc
		case '2':
			return kindCRC
		case '7':
			return kindODC
		}
		return 0
	}
	if len(b) >= 2 {
		switch {
		case b[0] == 0xc7 && b[1] == 0x71:
			return kindBinLE
		case b[0] == 0x71 && b[1] == 0xc7:
			return kindBinBE
		}
	}
	return 0
}

// header is one parsed cpio header.
type header struct {
	kind           kind
	dev, ino       uint64 // newc: the device as major<<32 | minor
	mode           uint32
	uid, gid       uint32
	nlink          uint32
	rmajor, rminor uint32
	mtime          int64
	size           int64
	sum            uint32 // crc: the stored byte sum of the data
	name           string
	off            int64 // where the data starts in the input
}

// parser reads the headers of one or more concatenated cpio archives.
type parser struct {
	src  fwd.Source
	lim  *engine.Limits
	rem  int64 // bytes of the current entry's data (and padding) not yet passed
	hbuf [newcSize]byte
	nbuf []byte // the name being read
	ends int    // trailers passed
	junk bool   // bytes other than zeros and a header follow the last trailer
}

// errEnd is returned by parser.next after the last trailer (io.EOF's
// stand-in); the input may end without one: then io.EOF.
var errEnd = io.EOF

// next parses the next header, passing the data of the previous one
// first; after a trailer it skips the zeros that pad it and goes on if
// another archive follows. mem is what the caller's headers already
// take; the name may use what is left of MaxHeaderMemory.
func (p *parser) next(mem int64) (*header, error) {
	for {
		if err := fwd.SkipRest(p.src, &p.rem); err != nil {
			return nil, err
		}
		h, err := p.header(mem)
		if err != nil {
			return nil, err
		}
		if h.name != trailer {
			return h, nil
		}
		p.ends++
		if err := fwd.SkipRest(p.src, &p.rem); err != nil {
			return nil, err
		}
		if more, err := p.skipZeros(); !more || err != nil {
			if err == nil {
				err = errEnd
			}
			return nil, err
		}
	}
}

// skipZeros passes the zero padding after a trailer and reports whether
// another archive's magic follows it.
func (p *parser) skipZeros() (bool, error) {
	for {
		b, err := p.src.Peek(512)
		if err != nil {
			return false, err
		}
		if len(b) == 0 {
			return false, nil
		}
		z := 0
		for z < len(b) && b[z] == 0 {
			z++
		}
		if z == len(b) {
			if err := p.src.Skip(int64(z)); err != nil {
				return false, err
			}
			continue
		}
		if err := p.src.Skip(int64(z)); err != nil {
			return false, err
		}
		if b, err = p.src.Peek(6); err != nil {
			return false, err
		}
		if kindOf(b) == 0 {
			p.junk = true
			return false, nil
		}
		return true, nil
	}
}

// header parses one header and its name at the current position and
// leaves the position at the entry's data, with p.rem its data and
// padding.
func (p *parser) header(mem int64) (*header, error) {
	start := p.src.Pos()
	b := p.hbuf[:binSize]
	if err := p.src.Full(b); err != nil {
		return nil, err
	}
	k := kindOf(b)
	if k == 0 {
		return nil, errs.Corrupt("cpio: no header magic at offset %d", start)
	}
	h := &header{kind: k}
	var nameSize int64
	var err error
	switch k {
	case kindBinLE, kindBinBE:
		var bo binary.ByteOrder = binary.LittleEndian
		if k == kindBinBE {
			bo = binary.BigEndian
		}
		w := func(i int) uint32 { return uint32(bo.Uint16(b[2*i:])) }
		h.dev, h.ino, h.mode = uint64(w(1)), uint64(w(2)), w(3)
		h.uid, h.gid, h.nlink = w(4), w(5), w(6)
		rdev := w(7)
		h.rmajor, h.rminor = rdev>>8, rdev&0xff
		h.mtime = int64(w(8)<<16 | w(9))
		nameSize = int64(w(10))
		h.size = int64(w(11)<<16 | w(12))
	case kindODC:
		b = p.hbuf[:odcSize]
		if err := p.src.Full(b[binSize:]); err != nil {
			return nil, err
		}
		var f [10]uint64
		widths := [10]int{6, 6, 6, 6, 6, 6, 6, 11, 6, 11}
		at := 6
		for i, n := range widths {
			if f[i], err = parseNum(b[at:at+n], 8); err != nil {
				return nil, err
			}
			at += n
		}
		h.dev, h.ino, h.mode = f[0], f[1], uint32(f[2])
		h.uid, h.gid, h.nlink = uint32(f[3]), uint32(f[4]), uint32(f[5])
		h.rmajor, h.rminor = uint32(f[6]>>8), uint32(f[6]&0xff)
		h.mtime, nameSize, h.size = int64(f[7]), int64(f[8]), int64(f[9])
	default:
		b = p.hbuf[:newcSize]
		if err := p.src.Full(b[binSize:]); err != nil {
			return nil, err
		}
		var f [13]uint64
		for i := range f {
			if f[i], err = parseNum(b[6+8*i:14+8*i], 16); err != nil {
				return nil, err
			}
		}
		h.ino, h.mode, h.uid, h.gid, h.nlink = f[0], uint32(f[1]), uint32(f[2]), uint32(f[3]), uint32(f[4])
		h.mtime, h.size = int64(f[5]), int64(f[6])
		h.dev = f[7]<<32 | f[8]
		h.rmajor, h.rminor = uint32(f[9]), uint32(f[10])
		nameSize, h.sum = int64(f[11]), uint32(f[12])
	}
	if nameSize == 0 {
		return nil, errs.Corrupt("cpio: a header at offset %d has an empty name", start)
	}
	if nameSize > p.lim.MaxHeaderMemory-mem {
		return nil, errs.Limit("cpio: a name of %d bytes passes MaxHeaderMemory (%d bytes)", nameSize, p.lim.MaxHeaderMemory)
	}
	name, err := p.readName(nameSize)
	if err != nil {
		return nil, err
	}
	h.name = name
	if err := p.src.Skip(pad(start+k.headerSize()+nameSize, k.align()) - (start + k.headerSize() + nameSize)); err != nil {
		return nil, err
	}
	h.off = p.src.Pos()
	if h.size > p.lim.MaxEntrySize {
		return nil, errs.Limit("cpio: entry %q of %d bytes passes MaxEntrySize (%d)", name, h.size, p.lim.MaxEntrySize)
	}
	p.rem = pad(h.off+h.size, k.align()) - h.off
	return h, nil
}

// readName reads n bytes of name (with its NUL) in pieces, so the
// buffer grows only as the input holds them.
func (p *parser) readName(n int64) (string, error) {
	p.nbuf = p.nbuf[:0]
	for int64(len(p.nbuf)) < n {
		k := int(min(n-int64(len(p.nbuf)), 4096))
		p.nbuf = append(p.nbuf, make([]byte, k)...)
		if err := p.src.Full(p.nbuf[len(p.nbuf)-k:]); err != nil {
			return "", err
		}
	}
	b := p.nbuf
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(p.nbuf) > 64<<10 {
		p.nbuf = nil // do not keep a huge buffer
	}
	return string(b), nil
}

// pad rounds n up to a multiple of a.
func pad(n, a int64) int64 { return (n + a - 1) / a * a }

// parseNum reads an ASCII number in base 8 or 16.
func parseNum(b []byte, base uint64) (uint64, error) {
	var v uint64
	for _, c := range b {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, errs.Corrupt("cpio: bad digit %q in a header field", c)
		}
		if d >= base {
			return 0, errs.Corrupt("cpio: bad digit %q in a header field", c)
		}
		v = v*base + d
	}
	return v, nil
}
