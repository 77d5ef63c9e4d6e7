package ar

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
)

const (
	magic      = "!<arch>\n"
	headerSize = 60
)

// header is one member's parsed header.
type header struct {
	name     string
	mtime    int64
	uid, gid int64
	mode     int64
	off      int64 // the member's data (after a BSD name)
	size     int64 // its data bytes (a BSD name not counted)
}

// parser reads the members of an ar archive: System V/GNU (names ending
// in '/', the "//" table of long names and "/N" names into it, the "/"
// and "/SYM64/" symbol tables) and BSD ("#1/N": the name is the first N
// bytes of the data; "__.SYMDEF" symbol tables). The symbol tables and
// the name table are the linker's and ar's own records, not members:
// they are skipped, as ar t skips them.
type parser struct {
	src   fwd.Source
	lim   *engine.Limits
	rem   int64          // data and padding of the current member not yet passed
	names []byte         // the GNU long-name table
	long  map[int]string // names made from it, by offset
	end   int64          // the input's size, which no member may pass; -1: a stream
	hb    [headerSize]byte
	seen  int64
}

// next returns the next member's header, positioned at its data; io.EOF
// after the last. mem is the header memory the caller holds.
func (p *parser) next(mem int64) (*header, error) {
	for {
		if err := fwd.SkipRest(p.src, &p.rem); err != nil {
			return nil, err
		}
		if b, err := p.src.Peek(1); len(b) == 0 || err != nil {
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		if p.seen++; p.seen > p.lim.MaxEntries {
			return nil, errs.Limit("ar: more than MaxEntries (%d) members", p.lim.MaxEntries)
		}
		start := p.src.Pos()
		b := p.hb[:]
		if err := p.src.Full(b); err != nil {
			return nil, err
		}
		if b[58] != '`' || b[59] != '\n' {
			return nil, errs.Corrupt("ar: no member header at offset %d", start)
		}
		h := &header{}
		var err error
		fields := [5]*int64{&h.mtime, &h.uid, &h.gid, &h.mode, &h.size}
		spans := [5][2]int{{16, 28}, {28, 34}, {34, 40}, {40, 48}, {48, 58}}
		for i, sp := range spans {
			base := 10
			if i == 3 {
				base = 8
			}
			if *fields[i], err = number(b[sp[0]:sp[1]], base); err != nil || *fields[i] < 0 {
				return nil, errs.Corrupt("ar: member header at offset %d: bad field %q", start, b[sp[0]:sp[1]])
			}
		}
		h.off = p.src.Pos()
		p.rem = h.size + h.size&1
		raw := string(bytes.TrimRight(b[:16], " "))
		switch {
		case raw == "/" || raw == "/SYM64/" || raw == "__.SYMDEF" || raw == "__.SYMDEF SORTED":
			continue
		case raw == "//":
			if h.size > p.lim.MaxHeaderMemory-mem {
				return nil, errs.Limit("ar: a name table of %d bytes passes MaxHeaderMemory (%d bytes)", h.size, p.lim.MaxHeaderMemory)
			}
			if p.names, err = p.read(h.size); err != nil {
				return nil, err
			}
			p.long = nil
			continue
		case len(raw) > 3 && raw[:3] == "#1/":
			n, err := strconv.ParseInt(raw[3:], 10, 64)
			if err != nil || n < 0 || n > h.size {
				return nil, errs.Corrupt("ar: BSD name length %q of a %d-byte member", raw[3:], h.size)
			}
			if n > p.lim.MaxHeaderMemory-mem {
				return nil, errs.Limit("ar: a name of %d bytes passes MaxHeaderMemory (%d bytes)", n, p.lim.MaxHeaderMemory)
			}
			nb, err := p.read(n)
			if err != nil {
				return nil, err
			}
			if i := bytes.IndexByte(nb, 0); i >= 0 {
				nb = nb[:i] // names are padded with NULs
			}
			h.name = string(nb)
			h.off += n
			h.size -= n
		case len(raw) > 1 && raw[0] == '/':
			i, err := strconv.ParseInt(raw[1:], 10, 64)
			if err != nil || i < 0 || i >= int64(len(p.names)) || i > 0 && !isNameEnd(p.names[i-1]) {
				return nil, errs.Corrupt("ar: long name %q is not a name in the name table (%d bytes)", raw, len(p.names))
			}
			h.name = p.longName(int(i))
		default:
			h.name = trimSlash(raw)
		}
		if h.name == "" {
			return nil, errs.Corrupt("ar: member at offset %d has no name", start)
		}
		if p.end >= 0 && h.off+h.size > p.end {
			return nil, errs.Truncated(fmt.Sprintf("ar: member %q needs %d bytes past the end of the input", h.name, h.off+h.size-p.end))
		}
		if h.size > p.lim.MaxEntrySize {
			return nil, errs.Limit("ar: member %q of %d bytes passes MaxEntrySize (%d)", h.name, h.size, p.lim.MaxEntrySize)
		}
		return h, nil
	}
}

// isNameEnd reports whether c ends a name in the long-name table: GNU
// and System V end them with "/\n", Microsoft's .lib with a NUL.
func isNameEnd(c byte) bool { return c == '\n' || c == 0 }

// longName is the name starting at i in the table. Each is made once
// (members may name the same one again), so the table is scanned once
// in all however many members refer into it.
func (p *parser) longName(i int) string {
	if s, ok := p.long[i]; ok {
		return s
	}
	e := i
	for e < len(p.names) && !isNameEnd(p.names[e]) {
		e++
	}
	s := trimSlash(string(p.names[i:e]))
	if p.long == nil {
		p.long = map[int]string{}
	}
	p.long[i] = s
	return s
}

// trimSlash drops the '/' a GNU short name ends with.
func trimSlash(s string) string {
	if len(s) > 1 && s[len(s)-1] == '/' {
		return s[:len(s)-1]
	}
	return s
}

// read reads n bytes of the current member in pieces, so the buffer
// grows only as the input holds them, and counts them off its data.
func (p *parser) read(n int64) ([]byte, error) {
	var b []byte
	for int64(len(b)) < n {
		k := int(min(n-int64(len(b)), 4096))
		b = append(b, make([]byte, k)...)
		if err := p.src.Full(b[len(b)-k:]); err != nil {
			return nil, err
		}
	}
	p.rem -= n
	return b, nil
}

// number parses a decimal or octal header field padded with spaces; all
// spaces is 0 (the name table's mode).
func number(b []byte, base int) (int64, error) {
	s := bytes.TrimRight(b, " ")
	if len(s) == 0 {
		return 0, nil
	}
	return strconv.ParseInt(string(s), base, 64)
}
