package rar

import (
	"bytes"
	"io/fs"
	"testing"
)

// rar5Dir builds a RAR5 archive of one directory with the given flags
// host (0 Windows, 1 Unix) and attributes.
func rar5Dir(host, attr uint64) []byte {
	w := newRAR5Writer()
	f := appendVint(nil, fhd5Dir)
	f = appendVint(f, 0) // unpacked size
	f = appendVint(f, attr)
	f = appendVint(f, 0) // compression info
	f = appendVint(f, host)
	f = appendVint(f, 1)
	f = append(f, 'd')
	w.block(2, 0, f, nil, -1)
	return w.bytes()
}

// TestDirModeKept: a directory whose Unix mode states it keeps that
// mode, however closed (RAR5 turned 040644 into 0755, RAR4 040600 into
// 0711 and 040644 into 0755); bits meant for a file on an entry only
// the directory flag makes a directory, and Windows attributes, still
// give a usable directory.
func TestDirModeKept(t *testing.T) {
	for _, c := range []struct {
		host uint64
		attr uint64
		want fs.FileMode
	}{
		{1, 0o040000, fs.ModeDir},
		{1, 0o040070, fs.ModeDir | 0o070},
		{1, 0o040600, fs.ModeDir | 0o600},
		{1, 0o040644, fs.ModeDir | 0o644},
		{1, 0o040444, fs.ModeDir | 0o444},
		{1, 0o100644, fs.ModeDir | 0o755},
		{1, 0o644, fs.ModeDir | 0o755},
		{0, 0x10, fs.ModeDir | 0o755},
		{0, 0x20, fs.ModeDir | 0o755},
		{0, 0x01, fs.ModeDir | 0o555},
	} {
		b := rar5Dir(c.host, c.attr)
		a, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatalf("RAR5 host %d attr %#o: %v", c.host, c.attr, err)
		}
		if es := a.Entries(); len(es) != 1 || es[0].Mode != c.want {
			t.Errorf("RAR5 host %d attr %#o: %d entries, mode %v, want %v", c.host, c.attr, len(es), es[0].Mode, c.want)
		}
		a.Close()
	}
	for _, c := range []struct {
		attr uint32
		want fs.FileMode
	}{
		{0o040000, fs.ModeDir},
		{0o040070, fs.ModeDir | 0o070},
		{0o040600, fs.ModeDir | 0o600},
		{0o040644, fs.ModeDir | 0o644},
		{0o040444, fs.ModeDir | 0o444},
	} {
		b := rar4Entry(3, c.attr, 0)
		a, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatalf("RAR4 attr %#o: %v", c.attr, err)
		}
		if es := a.Entries(); len(es) != 1 || es[0].Mode != c.want {
			t.Errorf("RAR4 attr %#o: %d entries, mode %v, want %v", c.attr, len(es), es[0].Mode, c.want)
		}
		a.Close()
	}
}
