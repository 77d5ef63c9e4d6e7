package zip

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

func str(s string) *string { return &s }

// policyCase is one crafted archive of the policy tests.
type policyCase struct {
	name string
	arc  func() []byte
}

func mk(p parc) func() []byte { return func() []byte { b, _ := p.build(); return b } }

func mkEnts(f func(e []pent)) []pent { e := two(); f(e); return e }

func zip64Extra(usize, csize uint64) []byte {
	b := make([]byte, 20)
	le.PutUint16(b, extraZip64)
	le.PutUint16(b[2:], 16)
	le.PutUint64(b[4:], usize)
	le.PutUint64(b[12:], csize)
	return b
}

var policyCases = []policyCase{
	{"ok", mk(parc{ents: two()})},
	// class 1
	{"c1-method", mk(parc{ents: mkEnts(func(e []pent) { e[1].local = func(h []byte) { le.PutUint16(h[8:], 8) } })})},
	{"c1-csize", mk(parc{ents: mkEnts(func(e []pent) { e[0].local = func(h []byte) { le.PutUint32(h[18:], le.Uint32(h[18:])-1) } })})},
	{"c1-usize", mk(parc{ents: mkEnts(func(e []pent) { e[0].local = func(h []byte) { le.PutUint32(h[22:], le.Uint32(h[22:])+1) } })})},
	{"c1-crc", mk(parc{ents: mkEnts(func(e []pent) { e[0].local = func(h []byte) { h[14] ^= 1 } })})},
	{"c1-crc-desc", mk(parc{ents: mkEnts(func(e []pent) { e[0].desc, e[0].descSig = true, true })})},
	{"c1-name", mk(parc{ents: mkEnts(func(e []pent) { e[1].lname = str("c.txt") })})},
	{"c1-magic", mk(parc{ents: mkEnts(func(e []pent) { e[1].local = func(h []byte) { h[3] = 9 } })})},
	{"c1-zip64dup-local", mk(parc{ents: mkEnts(func(e []pent) { e[1].lextra = zip64Extra(99, 99) })})},
	{"c1-zip64dup-central", mk(parc{ents: mkEnts(func(e []pent) {
		e[1].cextra = zip64Extra(99, 99)
	})})},
	{"c1-zip64-agree", mk(parc{ents: mkEnts(func(e []pent) {
		n := uint64(len(e[1].data))
		e[1].lextra = zip64Extra(n, n)
		e[1].local = func(h []byte) { le.PutUint32(h[18:], 0xffffffff); le.PutUint32(h[22:], 0xffffffff) }
	})})},
	{"c1-ccomment-past", mk(parc{ents: mkEnts(func(e []pent) {
		e[1].comment = "xy"
		e[1].central = func(h []byte) { le.PutUint16(h[32:], 200) }
	})})},
	{"c1-ccomment-into-next", mk(parc{ents: mkEnts(func(e []pent) {
		e[0].comment = "xy"
		e[0].central = func(h []byte) { le.PutUint16(h[32:], 10) }
	})})},
	{"c1-acomment-past", mk(parc{ents: two(), comment: []byte("hello"), eocd: func(e []byte) { le.PutUint16(e[20:], 300) }})},
	// class 2
	{"c2-base", mk(parc{ents: two(), prefix: bytes.Repeat([]byte("MZ"), 100)})},
	{"c2-base-adjusted", mk(parc{ents: two(), prefix: bytes.Repeat([]byte("MZ"), 100), adjusted: true})},
	{"c2-cdoff", mk(parc{ents: two(), eocd: func(e []byte) { le.PutUint32(e[16:], le.Uint32(e[16:])+7) }})},
	{"c2-cdsize", mk(parc{ents: two(), eocd: func(e []byte) { le.PutUint32(e[12:], le.Uint32(e[12:])-5) }})},
	{"c2-cdsize-high", mk(parc{ents: two(), eocd: func(e []byte) { le.PutUint32(e[12:], le.Uint32(e[12:])+5) }})},
	{"c2-count-high", mk(parc{ents: two(), eocd: func(e []byte) { le.PutUint16(e[8:], 5); le.PutUint16(e[10:], 5) }})},
	{"c2-count-low", mk(parc{ents: two(), eocd: func(e []byte) { le.PutUint16(e[8:], 1); le.PutUint16(e[10:], 1) }})},
	{"c2-count-zero", mk(parc{ents: two(), eocd: func(e []byte) { le.PutUint16(e[8:], 0); le.PutUint16(e[10:], 0) }})},
	{"c2-eocd-magic", mk(parc{ents: two(), eocd: func(e []byte) { e[2] = 9 }})},
	{"c2-eocd64-missing", mk(parc{ents: two(), zip64: true, loc: func(l []byte) { le.PutUint64(l[8:], 3) }})},
	{"c2-eocd64-gap", mk(parc{ents: two(), zip64: true, gap64: []byte("gapgap")})},
	{"c2-eocd64-nolocator-rec", mk(parc{ents: two(), zip64: true, eocd64: func(r []byte) { r[0] = 'X' }})},
	{"c2-comment-trunc", mk(parc{ents: two(), comment: []byte("hello"), eocd: func(e []byte) { le.PutUint16(e[20:], 9) }})},
	{"c2-hidden-in-comment", hiddenInComment},
	{"c2-locator-in-name", locatorInName},
	{"c2-base-rand", mk(parc{ents: two(), prefix: []byte("#!/bin/sh\necho this is a stub that is not an exe\nexit 0\n")})},
	// class 3
	{"c3-gap-before-cd", mk(parc{ents: two(), gap: []byte("junkjunkjunk")})},
	{"c3-gap-before-eocd", mk(parc{ents: two(), cdGap: []byte("junkjunkjunk")})},
	{"c3-trailer", mk(parc{ents: two(), trailer: []byte("trailing junk")})},
	{"c3-cut-after-cd", func() []byte { b, l := (&parc{ents: two()}).build(); return b[:l.eocd] }},
	{"c3-cut-in-cd", func() []byte { b, l := (&parc{ents: two()}).build(); return b[:l.cd+centralLen+3] }},
	// class 4
	{"c4-disk-numbers", mk(parc{ents: two(), eocd: func(e []byte) { le.PutUint16(e[4:], 1); le.PutUint16(e[6:], 1) }})},
	{"c4-spanned-marker", mk(parc{prefix: []byte("PK00"), adjusted: true, ents: two()})},
	{"c4-spanned-marker-unadj", mk(parc{prefix: []byte("PK00"), ents: two()})},
	// class 5
	{"c5-unix-backslash", mk(parc{ents: []pent{{name: `a\b.txt`, data: []byte("x")}}})},
	{"c5-unix-dotdot", mk(parc{ents: []pent{{name: `..\b.txt`, data: []byte("x")}}})},
	{"c5-dos-backslash", mk(parc{ents: []pent{{name: `d\b.txt`, data: []byte("x"), hostSet: true, host: hostDOS}}})},
	{"c5-ntfs11-backslash", mk(parc{ents: []pent{{name: `d\b.txt`, data: []byte("x"), hostSet: true, host: 11}}})},
	// class 6
	{"c6-desc-false-sig", mk(parc{ents: []pent{
		{name: "s.bin", data: append([]byte("abcPK\x07\x08"), make([]byte, 40)...), desc: true, descSig: true},
		{name: "t.txt", data: []byte("after")},
	}})},
}

// TestPolicyDump writes every case out (UNARC_POLICY_DUMP=dir) with
// what both APIs make of it, for comparing with 7zz t, bsdtar and unzip.
func TestPolicyDump(t *testing.T) {
	if os.Getenv("UNARC_POLICY_DUMP") == "" {
		t.Skip("UNARC_POLICY_DUMP not set")
	}
	for _, c := range policyCases {
		data := c.arc()
		dumpCase(t, c.name, data)
		a := readAllArchive(data)
		s := readAllStream(data)
		fmt.Printf("%-26s archive=%v\n%-26s stream=%v\n", c.name, a, "", s)
	}
}

// hiddenInComment is an archive whose comment is a second, complete
// archive (with other entries).
func hiddenInComment() []byte {
	inner, _ := (&parc{ents: []pent{{name: "hidden.txt", data: []byte("hidden")}}}).build()
	out, _ := (&parc{ents: two(), comment: inner}).build()
	return out
}

// locatorInName is an archive whose last central name ends with a Zip64
// locator pointing at a Zip64 end record hidden in an entry's data,
// which names a central directory (also in that data) of other entries.
func locatorInName() []byte {
	// The hidden directory: one entry, local header of entry 0 reused? No:
	// a separate stored entry "hidden.txt" inside the data of "carrier".
	hid, hl := (&parc{ents: []pent{{name: "hidden.txt", data: []byte("hidden")}}, zip64: true}).build()
	// hid: local(0) data cd eocd64 loc eocd. Take everything before the
	// locator as the carrier's data; offsets inside are relative to hid's start.
	carrier := hid[:hl.eocd64+end64Len]
	p := parc{ents: []pent{{name: "carrier.bin", data: carrier}, {name: "x"}}}
	_, l0 := p.build()
	// The carrier's data starts at its local header + 30 + len(name).
	dataAt := l0.local[0] + localLen + len("carrier.bin")
	loc := make([]byte, end64LocLen)
	le.PutUint32(loc, sigEnd64Loc)
	le.PutUint64(loc[8:], uint64(dataAt+hl.eocd64))
	le.PutUint32(loc[16:], 1)
	p.ents[1].name = "x" + string(loc)
	// The hidden records' offsets must be absolute: shift them.
	c := append([]byte(nil), carrier...)
	le.PutUint64(c[hl.eocd64+48:], uint64(dataAt+hl.cd))
	le.PutUint32(c[hl.cd+42:], uint32(dataAt))
	p.ents[0].data = c
	out, _ := p.build()
	return out
}
