package zip

import (
	"bytes"
	"compress/flate"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// This file holds a small ZIP writer for the consistency-policy tests:
// every field of every record can be set or broken on its own, which no
// real tool does (they write consistent archives). Each test below says
// what 7zz (7-Zip 24+) does with the same bytes; the archives can be
// written out for checking with UNARC_POLICY_DUMP=dir.

// pent is one entry of a crafted archive.
type pent struct {
	name     string
	data     []byte
	deflate  bool
	host     byte // "version made by" host (default Unix, 3)
	hostSet  bool
	desc     bool // data descriptor (flag bit 3): zero CRC and sizes in the local header
	descSig  bool // the descriptor has its signature
	lname    *string
	lextra   []byte
	cextra   []byte
	comment  string
	local    func(h []byte) // patches the local header (fixed part, name, extra)
	central  func(h []byte) // patches the central header (fixed part, name, extra, comment)
	utf8Flag bool
}

// parc is a crafted archive.
type parc struct {
	prefix   []byte // before the first local header
	adjusted bool   // offsets count the prefix (zip -A); else they are relative to after it
	ents     []pent
	gap      []byte // between the last entry and the central directory
	cdGap    []byte // between the central directory and the end records
	zip64    bool   // write a Zip64 end record and locator
	gap64    []byte // between the Zip64 end record and its locator
	comment  []byte
	trailer  []byte // after the end record and its comment
	eocd     func(e []byte)
	eocd64   func(e []byte)
	loc      func(l []byte)
}

// layout is where build put each record.
type layout struct {
	local            []int
	cd, eocd, eocd64 int
	base             int // subtracted from absolute offsets when written
}

func (e *pent) packed() []byte {
	if !e.deflate {
		return e.data
	}
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(e.data)
	w.Close()
	return b.Bytes()
}

func (p *parc) build() ([]byte, layout) {
	var out []byte
	var lay layout
	out = append(out, p.prefix...)
	if !p.adjusted {
		lay.base = len(p.prefix)
	}
	type rec struct {
		crc    uint32
		csize  int
		usize  int
		method uint16
		flags  uint16
		off    int
	}
	recs := make([]rec, len(p.ents))
	for i := range p.ents {
		e := &p.ents[i]
		pk := e.packed()
		r := rec{crc: crc32.ChecksumIEEE(e.data), csize: len(pk), usize: len(e.data), off: len(out) - lay.base}
		if e.deflate {
			r.method = 8
		}
		if e.desc {
			r.flags |= flagDescriptor
		}
		if e.utf8Flag {
			r.flags |= flagUTF8
		}
		recs[i] = r
		lay.local = append(lay.local, len(out))
		name := e.name
		if e.lname != nil {
			name = *e.lname
		}
		h := make([]byte, localLen, localLen+len(name)+len(e.lextra))
		le.PutUint32(h, sigLocal)
		le.PutUint16(h[4:], 20)
		le.PutUint16(h[6:], r.flags)
		le.PutUint16(h[8:], r.method)
		le.PutUint16(h[10:], 0x6000)
		le.PutUint16(h[12:], 0x5821)
		if !e.desc {
			le.PutUint32(h[14:], r.crc)
			le.PutUint32(h[18:], uint32(r.csize))
			le.PutUint32(h[22:], uint32(r.usize))
		}
		le.PutUint16(h[26:], uint16(len(name)))
		le.PutUint16(h[28:], uint16(len(e.lextra)))
		h = append(h, name...)
		h = append(h, e.lextra...)
		if e.local != nil {
			e.local(h)
		}
		out = append(out, h...)
		out = append(out, pk...)
		if e.desc {
			if e.descSig {
				out = le.AppendUint32(out, sigDescriptor)
			}
			out = le.AppendUint32(out, r.crc)
			out = le.AppendUint32(out, uint32(r.csize))
			out = le.AppendUint32(out, uint32(r.usize))
		}
	}
	out = append(out, p.gap...)
	lay.cd = len(out)
	for i := range p.ents {
		e := &p.ents[i]
		r := recs[i]
		host := byte(hostUnix)
		if e.hostSet {
			host = e.host
		}
		h := make([]byte, centralLen, centralLen+len(e.name)+len(e.cextra)+len(e.comment))
		le.PutUint32(h, sigCentral)
		le.PutUint16(h[4:], uint16(host)<<8|20)
		le.PutUint16(h[6:], 20)
		le.PutUint16(h[8:], r.flags)
		le.PutUint16(h[10:], r.method)
		le.PutUint16(h[12:], 0x6000)
		le.PutUint16(h[14:], 0x5821)
		le.PutUint32(h[16:], r.crc)
		le.PutUint32(h[20:], uint32(r.csize))
		le.PutUint32(h[24:], uint32(r.usize))
		le.PutUint16(h[28:], uint16(len(e.name)))
		le.PutUint16(h[30:], uint16(len(e.cextra)))
		le.PutUint16(h[32:], uint16(len(e.comment)))
		if host == hostUnix {
			le.PutUint32(h[38:], 0o100644<<16)
		}
		le.PutUint32(h[42:], uint32(r.off))
		h = append(h, e.name...)
		h = append(h, e.cextra...)
		h = append(h, e.comment...)
		if e.central != nil {
			e.central(h)
		}
		out = append(out, h...)
	}
	cdSize := len(out) - lay.cd
	out = append(out, p.cdGap...)
	n := len(p.ents)
	lay.eocd64 = -1
	if p.zip64 {
		lay.eocd64 = len(out)
		r := make([]byte, end64Len)
		le.PutUint32(r, sigEnd64)
		le.PutUint64(r[4:], end64Len-12)
		le.PutUint16(r[12:], 45)
		le.PutUint16(r[14:], 45)
		le.PutUint64(r[24:], uint64(n))
		le.PutUint64(r[32:], uint64(n))
		le.PutUint64(r[40:], uint64(cdSize))
		le.PutUint64(r[48:], uint64(lay.cd-lay.base))
		if p.eocd64 != nil {
			p.eocd64(r)
		}
		out = append(out, r...)
		out = append(out, p.gap64...)
		l := make([]byte, end64LocLen)
		le.PutUint32(l, sigEnd64Loc)
		le.PutUint64(l[8:], uint64(lay.eocd64-lay.base))
		le.PutUint32(l[16:], 1)
		if p.loc != nil {
			p.loc(l)
		}
		out = append(out, l...)
	}
	lay.eocd = len(out)
	e := make([]byte, endLen)
	le.PutUint32(e, sigEnd)
	le.PutUint16(e[8:], uint16(n))
	le.PutUint16(e[10:], uint16(n))
	le.PutUint32(e[12:], uint32(cdSize))
	le.PutUint32(e[16:], uint32(lay.cd-lay.base))
	if p.zip64 {
		le.PutUint16(e[8:], 0xffff)
		le.PutUint16(e[10:], 0xffff)
		le.PutUint32(e[12:], 0xffffffff)
		le.PutUint32(e[16:], 0xffffffff)
	}
	le.PutUint16(e[20:], uint16(len(p.comment)))
	if p.eocd != nil {
		p.eocd(e)
	}
	out = append(out, e...)
	out = append(out, p.comment...)
	out = append(out, p.trailer...)
	return out, lay
}

// dumpCase writes data to $UNARC_POLICY_DUMP/name.zip when that is set,
// for running 7zz, bsdtar and unzip on the same bytes.
func dumpCase(t *testing.T, name string, data []byte) {
	dir := os.Getenv("UNARC_POLICY_DUMP")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".zip"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func two() []pent {
	return []pent{
		{name: "a.txt", data: []byte("hello, hello, hello, world\n"), deflate: true},
		{name: "b.txt", data: []byte("second entry, stored\n")},
	}
}
