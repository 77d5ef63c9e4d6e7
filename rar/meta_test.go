package rar

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"testing"
	"time"
)

// rar4Entry builds a RAR 1.5–4.x archive of one empty stored file with the
// given host OS, attributes and DOS time.
func rar4Entry(host byte, attr, dosTime uint32) []byte {
	out := append([]byte(nil), sig4...)
	block := func(typ byte, flags uint16, rest []byte) { out = header4Bytes(out, typ, flags, rest) }
	block(head4Main, 0, make([]byte, 6))
	var r []byte
	r = binary.LittleEndian.AppendUint32(r, 0) // packed
	r = binary.LittleEndian.AppendUint32(r, 0) // unpacked
	r = append(r, host)
	r = binary.LittleEndian.AppendUint32(r, 0) // CRC of nothing
	r = binary.LittleEndian.AppendUint32(r, dosTime)
	r = append(r, 29, 0x30) // version, stored
	r = binary.LittleEndian.AppendUint16(r, 1)
	r = binary.LittleEndian.AppendUint32(r, attr)
	r = append(r, 'f')
	block(head4File, hfl4LongBlk, r)
	block(head4End, 0x4000, nil)
	return out
}

// TestRAR4Metadata: RAR4 modes and times go through internal/meta, so a
// Unix entry keeps setuid/setgid/sticky (the RAR5, ZIP and 7z readers
// already did; the RAR4 copy dropped them), Windows attributes give the
// modes 7-Zip and unrar give, and pipes/devices list as regular files.
func TestRAR4Metadata(t *testing.T) {
	const dt = 0x3a4d_bbef // 2009-02-13 23:31:30
	want := time.Date(2009, 2, 13, 23, 31, 30, 0, time.UTC)
	for _, c := range []struct {
		host byte
		attr uint32
		want fs.FileMode
	}{
		{3, 0o104755, fs.ModeSetuid | 0o755},
		{3, 0o102711, fs.ModeSetgid | 0o711},
		{3, 0o041777, fs.ModeDir | fs.ModeSticky | 0o777},
		{3, 0o010644, 0o644}, // fifo: a regular file
		{3, 0o020600, 0o600}, // char device: a regular file
		{2, 0x20, 0o644},
		{2, 0x21, 0o444},
		{2, 0x10, fs.ModeDir | 0o755},
		{2, 0x11, fs.ModeDir | 0o555},
	} {
		b := rar4Entry(c.host, c.attr, dt)
		a, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatalf("host %d attr %#o: %v", c.host, c.attr, err)
		}
		es := a.Entries()
		if len(es) != 1 {
			t.Fatalf("host %d attr %#o: %d entries", c.host, c.attr, len(es))
		}
		if es[0].Mode != c.want {
			t.Errorf("host %d attr %#o: mode %v, want %v", c.host, c.attr, es[0].Mode, c.want)
		}
		if !es[0].Modified.Equal(want) {
			t.Errorf("host %d attr %#o: modified %v, want %v", c.host, c.attr, es[0].Modified, want)
		}
		a.Close()
	}
}
