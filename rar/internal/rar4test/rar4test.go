// Package rar4test is a minimal RAR 1.5-4.x block walker shared by the
// tests of the unpack15, unpack20 and unpack29 decoders: it pulls out each
// file's packed bytes and what they must decode to, without the rar
// container package (which imports the decoders).
package rar4test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Entry is one file of a RAR 1.5-4.x archive, as far as the decoder
// tests need it: the packed bytes and what they must decode to.
type Entry struct {
	Name      string
	Packed    []byte
	Size      int64
	CRC       uint32
	Solid     bool
	Dict      int64
	Ver       byte // UNP_VER: 15, 20, 26, 29, 36
	Method    byte // 0x30 stored .. 0x35
	Encrypted bool
	Dir       bool
	Split     bool // part of a multi-volume entry that was not joined

	SplitBefore, SplitAfter bool
}

var rar4Marker = []byte("Rar!\x1a\x07\x00")

// Parse is a minimal RAR 1.5-4.x block walker for tests: marker, then
// blocks of HEAD_CRC u16, HEAD_TYPE u8, HEAD_FLAGS u16, HEAD_SIZE u16
// [, ADD_SIZE u32 when flags&0x8000]. File headers (0x74) carry
// PACK_SIZE u32, UNP_SIZE u32, HOST_OS, FILE_CRC u32, FTIME u32, UNP_VER,
// METHOD, NAME_SIZE u16, ATTR u32 [HIGH_PACK, HIGH_UNP when flags&0x100],
// then the name; the packed data follows the header. An SFX stub before
// the marker is skipped. Encrypted headers (main flag 0x80) are not
// supported.
func Parse(b []byte) ([]Entry, error) {
	i := bytes.Index(b, rar4Marker)
	if i < 0 {
		return nil, errors.New("no RAR4 marker")
	}
	p := i + len(rar4Marker)
	var out []Entry
	for p+7 <= len(b) {
		typ := b[p+2]
		flags := binary.LittleEndian.Uint16(b[p+3:])
		hsize := int(binary.LittleEndian.Uint16(b[p+5:]))
		if hsize < 7 || p+hsize > len(b) {
			return out, errors.New("bad header size")
		}
		h := b[p : p+hsize]
		var add int64
		switch typ {
		case 0x73:
			if flags&0x80 != 0 {
				return out, errors.New("encrypted headers")
			}
		case 0x74:
			if hsize < 32 {
				return out, errors.New("short file header")
			}
			e := Entry{
				Size:      int64(binary.LittleEndian.Uint32(h[11:])),
				CRC:       binary.LittleEndian.Uint32(h[16:]),
				Ver:       h[24],
				Method:    h[25],
				Solid:     flags&0x10 != 0,
				Encrypted: flags&0x04 != 0,
				Split:     flags&0x03 != 0,

				SplitBefore: flags&0x01 != 0,
				SplitAfter:  flags&0x02 != 0,
			}
			add = int64(binary.LittleEndian.Uint32(h[7:]))
			nameSize := int(binary.LittleEndian.Uint16(h[26:]))
			q := 32
			if flags&0x100 != 0 {
				if hsize < 40 {
					return out, errors.New("short file header")
				}
				add |= int64(binary.LittleEndian.Uint32(h[32:])) << 32
				e.Size |= int64(binary.LittleEndian.Uint32(h[36:])) << 32
				q = 40
			}
			if q+nameSize > hsize {
				return out, errors.New("bad name size")
			}
			e.Name = string(h[q : q+nameSize])
			if n := bytes.IndexByte([]byte(e.Name), 0); n >= 0 {
				e.Name = e.Name[:n] // Unicode name follows; the test needs only ASCII
			}
			d := flags >> 5 & 7
			e.Dir = d == 7
			e.Dict = 64 << 10 << d
			if int64(p+hsize)+add > int64(len(b)) {
				return out, errors.New("truncated data")
			}
			e.Packed = b[p+hsize : p+hsize+int(add)]
			out = append(out, e)
		case 0x7b:
			return out, nil
		default:
			if flags&0x8000 != 0 && hsize >= 11 {
				add = int64(binary.LittleEndian.Uint32(h[7:]))
			}
		}
		p += hsize + int(add)
	}
	return out, nil
}

// Load parses an archive and, for a multi-volume set (name.partN.rar,
// name.rar + name.rNN, or a byte-split name.001), the volumes after it,
// joining the packed data of entries split across volumes.
func Load(path string) ([]Entry, error) {
	var vols []string
	dir, base := filepath.Split(path)
	switch {
	case strings.HasSuffix(base, ".001"):
		// A byte-level Split: the pieces concatenate to one archive.
		stem := strings.TrimSuffix(base, ".001")
		var all []byte
		for i := 1; ; i++ {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s.%03d", stem, i)))
			if err != nil {
				break
			}
			all = append(all, b...)
		}
		return Parse(all)
	case partRE.MatchString(base):
		m := partRE.FindStringSubmatch(base)
		for i := 1; ; i++ {
			p := filepath.Join(dir, fmt.Sprintf("%s.part%0*d.rar", m[1], len(m[2]), i))
			if _, err := os.Stat(p); err != nil {
				break
			}
			vols = append(vols, p)
		}
	case strings.HasSuffix(base, ".rar"):
		vols = append(vols, path)
		stem := strings.TrimSuffix(path, ".rar")
		for i := 0; ; i++ {
			p := fmt.Sprintf("%s.r%02d", stem, i)
			if _, err := os.Stat(p); err != nil {
				break
			}
			vols = append(vols, p)
		}
	default:
		vols = append(vols, path)
	}
	var out []Entry
	for _, v := range vols {
		b, err := os.ReadFile(v)
		if err != nil {
			return out, err
		}
		ents, perr := Parse(b)
		for _, e := range ents {
			if e.SplitBefore && len(out) > 0 && out[len(out)-1].SplitAfter {
				last := &out[len(out)-1]
				last.Packed = append(append([]byte(nil), last.Packed...), e.Packed...)
				last.SplitAfter = e.SplitAfter
				last.CRC = e.CRC // the last part carries the file's CRC
				continue
			}
			out = append(out, e)
		}
		if perr != nil {
			return out, perr
		}
	}
	for i := range out {
		out[i].Split = out[i].SplitBefore || out[i].SplitAfter
	}
	return out, nil
}

var partRE = regexp.MustCompile(`^(.*)\.part([0-9]+)\.rar$`)
