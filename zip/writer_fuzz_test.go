package zip

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzWriterTree decodes a fuzz input into writer options, whether the
// sink seeks, and a tree: bytes 0 and 1 pick the options, then each
// entry is a kind byte (type, method, mode, time), a name length and
// name, and (for files and links) a content length, a repeat count and
// the content.
func fuzzWriterTree(b []byte) (opts []WriterOption, seek bool, files []wfile, pw string) {
	if len(b) < 2 {
		return nil, false, nil, ""
	}
	o1, o2 := b[0], b[1]
	b = b[2:]
	opts = []WriterOption{WithRandom(rand.NewChaCha8([32]byte{o1, o2})), WithLevel(int(o1) % 10)}
	if o1&0x10 != 0 {
		opts = append(opts, WithCleanNames())
	}
	if o2&1 != 0 {
		pw = "fuzz"
		opts = append(opts, WithPassword(pw))
		if o2&2 != 0 {
			opts = append(opts, WithZipCrypto())
		}
	}
	seek = o2&4 != 0
	times := []time.Time{{}, time.Date(2020, 1, 2, 3, 4, 6, 0, time.UTC), time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)}
	methods := []uint16{Store, Deflate, Zstd, LZMA}
	for len(b) >= 2 && len(files) < 32 {
		kind, nl := b[0], int(b[1])%40+1
		b = b[2:]
		if nl > len(b) {
			break
		}
		f := wfile{name: string(b[:nl]), method: methods[kind&3], mod: times[kind>>2&3]}
		b = b[nl:]
		switch kind >> 4 & 3 {
		case 0:
			f.mode = fs.ModeDir | 0o755
		case 1:
			f.mode = fs.ModeSymlink | 0o777
		default:
			f.mode = 0o644 | fs.FileMode(kind>>6)<<7
		}
		if !f.mode.IsDir() && len(b) >= 2 {
			n, rep := int(b[0]), int(b[1])%64+1
			b = b[2:]
			n = min(n, len(b))
			f.data = bytes.Repeat(b[:n], rep)
			b = b[n:]
			if f.mode&fs.ModeSymlink != 0 && len(f.data) == 0 {
				f.data = []byte("t")
			}
		}
		files = append(files, f)
	}
	return opts, seek, files, pw
}

// FuzzZipWriter writes arbitrary trees with arbitrary options and reads
// them back with both readers: every entry the Writer accepts reads back
// as written; a name it refuses is refused with ErrInvalidName.
func FuzzZipWriter(f *testing.F) {
	f.Add([]byte{5, 0, 0x21, 3, 'a', '/', 'b', 10, 3, 'x', 'y', 'z'})
	f.Add([]byte{0x15, 5, 0x22, 4, '.', '.', '/', 'c', 200, 60, 1, 2, 3})
	f.Add([]byte{3, 3, 0x00, 2, 'd', '/', 0x13, 3, 'd', '/', 'l', 5, 1, 'q'})
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 512<<20)()
		opts, seek, tree, pw := fuzzWriterTree(data)
		sb := &seekBuffer{}
		var zw *Writer
		if seek {
			zw = NewWriter(sb, opts...)
		} else {
			zw = NewWriter(onlyWriter{sb}, opts...)
		}
		var kept []wfile
		for _, e := range tree {
			h := &FileHeader{Name: e.name, Modified: e.mod, Method: e.method}
			h.SetMode(e.mode)
			w, err := zw.CreateHeader(h)
			if errors.Is(err, ErrInvalidName) {
				continue
			}
			if err != nil {
				t.Fatalf("%q: %v", e.name, err)
			}
			// What the reader lists: the cleaned name, as stored.
			name, dir := splitForTest(zw, e.name)
			e.name = name
			if dir {
				e.mode, e.data = fs.ModeDir|e.mode.Perm(), nil
			}
			if len(e.data) > 0 {
				if _, err := w.Write(e.data); err != nil {
					t.Fatal(err)
				}
			}
			kept = append(kept, e)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		checkTree(t, sb.b, kept, pw)
		checkStream(t, sb.b, kept, pw)
	})
}

// splitForTest is the name the Writer stored for raw (no trailing
// slash).
func splitForTest(zw *Writer, raw string) (string, bool) {
	if !zw.cur.active {
		return raw, false
	}
	n := zw.cur.r.name
	if !utf8.ValidString(n) {
		n = decodeCP437([]byte(n)) // as the reader names it
	}
	if len(n) > 0 && n[len(n)-1] == '/' {
		return n[:len(n)-1], true
	}
	return n, false
}
