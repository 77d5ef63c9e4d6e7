package zip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func xzTestFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "xz", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readXZZip decodes the one entry of a method-95 ZIP through Archive.Open
// (WriteTo and plain Read) and the forward Reader.
func readXZZip(t *testing.T, data []byte, cfg *arc.Config) (outs [3][]byte, errsOut [3]error) {
	t.Helper()
	if cfg == nil {
		cfg = &arc.Config{}
	}
	for i := range 2 {
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
		if err != nil {
			t.Fatal(err)
		}
		if m := a.Entries()[0].Method; m != "XZ" {
			t.Fatalf("method %q, want XZ", m)
		}
		rc, err := a.Open(0)
		if err != nil {
			errsOut[i] = err
			a.Close()
			continue
		}
		var buf bytes.Buffer
		if i == 0 {
			_, err = io.Copy(&buf, rc)
		} else {
			_, err = io.Copy(&buf, onlyReader{rc})
		}
		outs[i], errsOut[i] = buf.Bytes(), err
		rc.Close()
		a.Close()
	}
	z, err := NewReader(iotest.HalfReader(bytes.NewReader(data)), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if _, err := z.Next(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, errsOut[2] = io.Copy(&buf, z)
	outs[2] = buf.Bytes()
	if errsOut[2] == nil {
		if _, err := z.Next(); err != io.EOF {
			errsOut[2] = err
		}
	}
	return outs, errsOut
}

// TestXZMethod reads 7zz's method-95 ZIPs (sizes in the header, and
// streamed with a data descriptor) through both APIs.
func TestXZMethod(t *testing.T) {
	want := xzTestFile(t, "input.bin")
	for _, name := range []string{"zip-xz.zip", "zip-xz-stream.zip"} {
		outs, errsOut := readXZZip(t, xzTestFile(t, name), nil)
		for i := range outs {
			if errsOut[i] != nil {
				t.Fatalf("%s way %d: %v", name, i, errsOut[i])
			}
			if !bytes.Equal(outs[i], want) {
				t.Fatalf("%s way %d: %d bytes, want %d", name, i, len(outs[i]), len(want))
			}
		}
	}
}

// TestXZMethodDamage: a bad xz check is ErrChecksum, a damaged xz header
// ErrCorrupt, and limits apply from the xz block header (MaxMemory and
// MaxDictionary, the window counted by the entry's size) before the
// window is allocated.
func TestXZMethodDamage(t *testing.T) {
	data := xzTestFile(t, "zip-xz.zip")
	// The xz stream starts after the local header (30 bytes + name).
	start := 30 + len("input.bin")
	if !bytes.Equal(data[start:start+6], []byte("\xfd7zXZ\x00")) {
		t.Fatal("zip-xz.zip: no xz stream after the local header")
	}
	csize := int(binary.LittleEndian.Uint32(data[18:]))
	footer := start + csize - 12
	index := footer - (int(binary.LittleEndian.Uint32(data[footer+4:]))+1)*4
	cases := []struct {
		name string
		edit func(b []byte)
		cfg  *arc.Config
		want error
	}{
		{"stream header", func(b []byte) { b[start+8] ^= 1 }, nil, errs.ErrCorrupt},
		{"block header", func(b []byte) { b[start+14] ^= 1 }, nil, errs.ErrCorrupt},
		{"xz check", func(b []byte) { b[index-1] ^= 1 }, nil, errs.ErrChecksum},
		{"xz index", func(b []byte) { b[index+2] ^= 1 }, nil, errs.ErrCorrupt},
		{"xz footer", func(b []byte) { b[footer+1] ^= 1 }, nil, errs.ErrCorrupt},
		{"MaxMemory below the fixed buffers", nil, &arc.Config{Limits: arc.Limits{MaxMemory: xzFixed - 1}}, errs.ErrLimit},
		{"MaxMemory below the window", nil, &arc.Config{Limits: arc.Limits{MaxMemory: xzFixed + 8<<10}}, errs.ErrLimit},
		{"MaxDictionary", nil, &arc.Config{Limits: arc.Limits{MaxDictionary: 8 << 10}}, errs.ErrLimit},
	}
	for _, c := range cases {
		b := bytes.Clone(data)
		if c.edit != nil {
			c.edit(b)
		}
		_, errsOut := readXZZip(t, b, c.cfg)
		for i, err := range errsOut {
			if !errors.Is(err, c.want) {
				t.Errorf("%s way %d: %v, want %v", c.name, i, err, c.want)
			}
		}
	}
	// The 8 MiB dictionary of -mx5 over 16 KiB passes a 1 MiB dictionary
	// limit: the window is counted by the entry's size.
	cfg := &arc.Config{Limits: arc.Limits{MaxDictionary: 1 << 20, MaxMemory: 2 << 20}}
	if _, errsOut := readXZZip(t, data, cfg); errsOut != [3]error{} {
		t.Fatalf("small limits over a small entry: %v", errsOut)
	}
}

// craftXZZip wraps an .xz stream as the one method-95 entry of a ZIP
// (crafted: 7zz writes block sizes into its xz headers, and this needs a
// stream from xz, whose headers omit them, so only the ZIP's size can
// bound the window).
func craftXZZip(stream, plain []byte, size uint64) []byte {
	f := testutil.ZipFile{Name: "a.bin", Method: 95, Packed: stream, CRC: crc32.ChecksumIEEE(plain), Size: size}
	var b testutil.ZipBuilder
	b.Add(f)
	return b.Bytes()
}

// TestXZMethodWindowBySize: an xz -9e stream (64 MiB dictionary, no
// sizes in its block headers) of 16 KiB passes a 1 MiB MaxDictionary
// because the entry's recorded size bounds the window; the same stream
// recorded as 2 MiB does not; data longer than its recorded size is
// ErrCorrupt through every path.
func TestXZMethodWindowBySize(t *testing.T) {
	plain := xzTestFile(t, "input.bin")
	stream := xzTestFile(t, "level9e.xz")
	cfg := &arc.Config{Limits: arc.Limits{MaxDictionary: 1 << 20}}
	outs, errsOut := readXZZip(t, craftXZZip(stream, plain, uint64(len(plain))), cfg)
	for i := range outs {
		if errsOut[i] != nil || !bytes.Equal(outs[i], plain) {
			t.Fatalf("way %d: %d bytes, %v", i, len(outs[i]), errsOut[i])
		}
	}
	_, errsOut = readXZZip(t, craftXZZip(stream, plain, 2<<20), cfg)
	for i, err := range errsOut {
		if !errors.Is(err, errs.ErrLimit) {
			t.Fatalf("recorded 2 MiB, way %d: %v, want ErrLimit", i, err)
		}
	}
	_, errsOut = readXZZip(t, craftXZZip(stream, plain, uint64(len(plain))-1), nil)
	for i, err := range errsOut {
		if !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("recorded one byte short, way %d: %v, want ErrCorrupt", i, err)
		}
	}
}
