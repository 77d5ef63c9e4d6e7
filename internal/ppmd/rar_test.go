package ppmd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/go-unarc/unarc/internal/testutil"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// rar4File is the first file of a RAR 1.5-4.x archive, parsed just enough
// to reach its packed data (RAR technote: marker block, archive header,
// file header with HEAD_CRC u16, HEAD_TYPE u8, HEAD_FLAGS u16,
// HEAD_SIZE u16, PACK_SIZE u32, UNP_SIZE u32, HOST_OS u8, FILE_CRC u32,
// FTIME u32, UNP_VER u8, METHOD u8, ...).
type rar4File struct {
	packed []byte
	size   int64
	crc    uint32
	unpVer byte
	method byte
	solid  bool
}

func parseRAR4(t testutil.TB, b []byte) rar4File {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("Rar!\x1a\x07\x00")) {
		t.Fatal("not a RAR 1.5-4.x archive")
	}
	pos := 7
	for pos+7 <= len(b) {
		typ := b[pos+2]
		flags := binary.LittleEndian.Uint16(b[pos+3:])
		hsize := int(binary.LittleEndian.Uint16(b[pos+5:]))
		if hsize < 7 || pos+hsize > len(b) {
			t.Fatalf("bad header size %d at %d", hsize, pos)
		}
		var add int
		if flags&0x8000 != 0 || typ == 0x74 {
			add = int(binary.LittleEndian.Uint32(b[pos+7:]))
		}
		if typ == 0x74 {
			h := b[pos:]
			f := rar4File{
				size:   int64(binary.LittleEndian.Uint32(h[11:])),
				crc:    binary.LittleEndian.Uint32(h[16:]),
				unpVer: h[24],
				method: h[25],
				solid:  flags&0x10 != 0,
			}
			packSize := int64(add)
			if flags&0x100 != 0 {
				packSize |= int64(binary.LittleEndian.Uint32(h[32:])) << 32
				f.size |= int64(binary.LittleEndian.Uint32(h[36:])) << 32
			}
			start := pos + hsize
			if packSize > int64(len(b)-start) {
				t.Fatalf("packed size %d beyond archive", packSize)
			}
			f.packed = b[start : start+int(packSize)]
			return f
		}
		pos += hsize + add
	}
	t.Fatal("no file header")
	return rar4File{}
}

// unpackPPM29 decodes a v29 stream made only of PPMd blocks, with the
// escape protocol of unrar's Unpack29: esc 0 = next block header, 1 =
// literal escape byte, 2 = end of file, 4 = match (3 distance bytes + 1
// length byte), 5 = run of the previous byte. Filters (3) and LZ blocks
// fail the test: the inputs are plain text. It requires the end marker.
func unpackPPM29(d *RAR, br io.ByteReader, size int64) ([]byte, error) {
	out := make([]byte, 0, size)
	esc := 2
	newBlock := func() error {
		b, err := br.ReadByte()
		if err != nil {
			return err
		}
		if b&0x80 == 0 {
			return fmt.Errorf("LZ block: not handled by this test")
		}
		e, err := d.ReadHeader(prepend(b, br))
		if e >= 0 {
			esc = e
		}
		return err
	}
	if err := newBlock(); err != nil {
		return nil, err
	}
	copyMatch := func(length, dist int) error {
		if dist > len(out) || dist <= 0 {
			return errs.Corrupt("match distance %d beyond output %d", dist, len(out))
		}
		for ; length > 0; length-- {
			out = append(out, out[len(out)-dist])
		}
		return nil
	}
	for {
		if int64(len(out)) > size {
			return out, errs.Corrupt("output beyond the file size")
		}
		c, err := d.Decode()
		if err != nil {
			return out, err
		}
		if int(c) != esc {
			out = append(out, c)
			continue
		}
		next, err := d.Decode()
		if err != nil {
			return out, err
		}
		switch next {
		case 0:
			if err := newBlock(); err != nil {
				return out, err
			}
		case 1:
			out = append(out, c)
		case 2:
			if int64(len(out)) != size {
				return out, errs.Corrupt("end marker after %d of %d bytes", len(out), size)
			}
			return out, nil
		case 3:
			return out, fmt.Errorf("filter in PPMd stream: not handled by this test")
		case 4:
			var v [4]byte
			for i := range v {
				if v[i], err = d.Decode(); err != nil {
					return out, err
				}
			}
			dist := int(v[0])<<16 | int(v[1])<<8 | int(v[2])
			if err := copyMatch(int(v[3])+32, dist+2); err != nil {
				return out, err
			}
		case 5:
			l, err := d.Decode()
			if err != nil {
				return out, err
			}
			if err := copyMatch(int(l)+4, 1); err != nil {
				return out, err
			}
		default:
			out = append(out, c)
		}
	}
}

// prepend gives back a byte already taken from br.
func prepend(b byte, br io.ByteReader) io.ByteReader { return &prependReader{b: b, ok: true, br: br} }

type prependReader struct {
	b  byte
	ok bool
	br io.ByteReader
}

func (p *prependReader) ReadByte() (byte, error) {
	if p.ok {
		p.ok = false
		return p.b, nil
	}
	return p.br.ReadByte()
}

func TestRAR(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	var d RAR
	defer d.Close()
	for _, f := range loadFacts(t, "rar") {
		t.Run(f.Archive, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(testdataDir(), f.Archive))
			if err != nil {
				t.Fatal(err)
			}
			rf := parseRAR4(t, b)
			if rf.unpVer != 29 || rf.size != f.Size {
				t.Fatalf("unpack version %d size %d; want 29, %d", rf.unpVer, rf.size, f.Size)
			}
			d.Reset()
			got, err := unpackPPM29(&d, bytes.NewReader(rf.packed), rf.size)
			if err != nil {
				t.Fatalf("after %d bytes: %v", len(got), err)
			}
			if c := crc32.ChecksumIEEE(got); c != rf.crc || sum(got) != f.SHA256 {
				t.Fatalf("crc %08x sha256 %s; want %08x %s", c, sum(got), rf.crc, f.SHA256)
			}
			t.Logf("model started %d times", d.m.restarts)
			if strings.Contains(f.Archive, "-1m") && d.m.restarts < 2 {
				t.Errorf("the arena never filled; the test misses the restart path")
			}
		})
	}
}

func TestRARTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	f := loadFacts(t, "rar")[3]
	b, err := os.ReadFile(filepath.Join(testdataDir(), f.Archive))
	if err != nil {
		t.Fatal(err)
	}
	rf := parseRAR4(t, b)
	var d RAR
	defer d.Close()
	// The decoder stops reading after the end marker; the flush bytes
	// after that point are never read, so those prefixes decode.
	full := bytes.NewReader(rf.packed)
	if _, err := unpackPPM29(&d, full, rf.size); err != nil {
		t.Fatal(err)
	}
	used := len(rf.packed) - full.Len()
	t.Logf("decoder read %d of %d bytes", used, len(rf.packed))
	for n := 0; n < len(rf.packed); n++ {
		d.Reset()
		_, err := unpackPPM29(&d, bytes.NewReader(rf.packed[:n]), rf.size)
		if err == nil && n >= used {
			continue
		}
		if !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, io.EOF) {
			t.Fatalf("prefix %d/%d: err %v, want truncated", n, len(rf.packed), err)
		}
	}
}

func TestRARHeader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    []byte
		max   int
		esc   int
		err   error
		ready bool
	}{
		{"reset", []byte{0x80 | 0x20 | 5, 0, 1, 2, 3, 4}, 0, -1, nil, true},
		{"reset+esc", []byte{0x80 | 0x60 | 5, 0, 7, 1, 2, 3, 4}, 0, 7, nil, true},
		{"order 1", []byte{0x80 | 0x20, 0, 1, 2, 3, 4}, 0, -1, errs.ErrCorrupt, false},
		{"no model", []byte{0x80 | 5, 1, 2, 3, 4}, 0, -1, errs.ErrCorrupt, false},
		{"limit", []byte{0x80 | 0x20 | 5, 255, 1, 2, 3, 4}, 8 << 20, -1, errs.ErrLimit, false},
		{"short", []byte{0x80 | 0x20 | 5, 0, 1, 2}, 0, -1, errs.ErrTruncated, false},
		{"empty", nil, 0, -1, errs.ErrTruncated, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := RAR{MaxMemory: tc.max}
			defer d.Close()
			esc, err := d.ReadHeader(bytes.NewReader(tc.in))
			if (tc.err == nil) != (err == nil) || (tc.err != nil && !errors.Is(err, tc.err)) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err == nil && esc != tc.esc {
				t.Fatalf("esc %d, want %d", esc, tc.esc)
			}
			if d.ready != tc.ready {
				t.Fatalf("ready %v, want %v", d.ready, tc.ready)
			}
		})
	}
}
