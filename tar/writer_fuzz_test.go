package tar

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzHeaders turns b into a compressor, options and entries: per
// entry a type, a name, a size, a mode and a time.
func fuzzHeaders(b []byte) ([]WriterOption, []wfile) {
	if len(b) < 2 {
		return nil, nil
	}
	opts := []WriterOption{WithCompression(writeKinds[int(b[0])%len(writeKinds)]), WithLevel(int(b[1] & 1)),
		WithThreads(1 + int(b[1]>>1&1)), WithBlockSize(4<<10 + int64(b[1]>>2)<<10)}
	b = b[2:]
	var tree []wfile
	for len(b) >= 12 && len(tree) < 64 {
		kind, nlen := b[0], int(b[1])%120+1
		size := int(binary.LittleEndian.Uint16(b[2:])) % 20000
		mode := int64(binary.LittleEndian.Uint16(b[4:])) & 0o7777
		sec := int64(binary.LittleEndian.Uint32(b[6:]))<<8 - 1<<38 + int64(b[10])
		nsec := int64(b[11]) * 3_900_000
		b = b[12:]
		nlen = min(nlen, len(b))
		name := string(b[:nlen])
		b = b[nlen:]
		h := tar.Header{Name: name, Mode: mode, ModTime: time.Unix(sec, nsec), Typeflag: tar.TypeReg}
		var data []byte
		switch kind % 5 {
		case 0:
			h.Typeflag = tar.TypeDir
		case 1:
			h.Typeflag, h.Linkname = tar.TypeSymlink, name+"~"
		case 2:
			h.Typeflag, h.Linkname = tar.TypeLink, name+"="
		case 3:
			h.Format = tar.FormatPAX // sub-second times kept
			fallthrough
		default:
			data = bytes.Repeat([]byte{kind, byte(size)}, size/2)
			h.Size = int64(len(data))
		}
		tree = append(tree, wfile{h: h, data: data})
	}
	return opts, tree
}

// FuzzTarWriter: arbitrary headers, sizes and compressors, written
// and read back by our reader: what WriteHeader accepted comes back as
// it was written (names, types, links, modes, times, contents).
func FuzzTarWriter(f *testing.F) {
	for c := range writeKinds {
		f.Add(append([]byte{byte(c), 0}, []byte("\x03\x05\x10\x00\xa4\x01\x00\x00\x00\x10\x00\x00hello")...))
		f.Add(append([]byte{byte(c), 3}, []byte("\x00\x70\x00\x00\xed\x01\x00\x00\x00\x10\x00\x01a-very-long-directory-name-ünïcødé-that-goes-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on\x04\x03\xff\x4f\x00\x00\xff\xff\xff\xff\xff\x80abc")...))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, 10*testutil.FuzzTimeout, 512<<20)()
		opts, tree := fuzzHeaders(b)
		if opts == nil {
			return
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var kept []wfile
		for _, f := range tree {
			h := f.h
			if err := w.WriteHeader(&h); err != nil {
				if errors.Is(err, tar.ErrWriteTooLong) {
					t.Fatal(err)
				}
				continue // a header archive/tar cannot encode
			}
			if _, err := w.Write(f.data); err != nil {
				t.Fatalf("%q: %v", h.Name, err)
			}
			if h.Format != tar.FormatPAX {
				f.h.ModTime = f.h.ModTime.Round(time.Second)
			}
			kept = append(kept, f)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if len(kept) == 0 {
			return // only the end blocks: may read as a single file of zeros
		}
		got, _, err := readTree(buf.Bytes())
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if err := sameTree(kept, got); err != nil {
			t.Fatal(err)
		}
	})
}
