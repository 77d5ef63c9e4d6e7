package sevenzip

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzTree decodes a fuzz input into writer options and a tree: byte 0
// and 1 pick the options, then each entry is a kind byte, a name length
// and name, and (for files and links) a content length and content.
func fuzzTree(b []byte) ([]WriterOption, []tfile, string) {
	if len(b) < 2 {
		return nil, nil, ""
	}
	o1, o2 := b[0], b[1]
	b = b[2:]
	opts := []WriterOption{WithDictSize(1 << 16), WithRandom(rand.NewChaCha8([32]byte{o1, o2}))}
	opts = append(opts, WithMethod(Method(o1%3)), WithLevel(int(o1>>2)%4))
	switch o1 >> 4 & 7 {
	case 1:
		opts = append(opts, WithFilter(FilterX86))
	case 2:
		opts = append(opts, WithFilter(FilterARM64))
	case 3:
		opts = append(opts, WithDelta(int(o2)+1))
	case 4:
		opts = append(opts, WithFilter(FilterARM))
	case 5:
		opts = append(opts, WithFilter(FilterNone))
	}
	switch o2 & 3 {
	case 1:
		opts = append(opts, WithSolid(0, 1))
	case 2:
		opts = append(opts, WithSolid(int64(o2)*16, 0))
	case 3:
		opts = append(opts, WithSolid(0, int(o2>>2)%4+1))
	}
	pw := ""
	if o2&4 != 0 {
		pw = "fuzz"
		opts = append(opts, WithPassword(pw), WithKDFCycles(1), WithSalt(int(o2>>3)%17))
		if o2&8 != 0 {
			opts = append(opts, WithEncryptedHeaders())
		}
	}
	if o1&0x80 != 0 {
		opts = append(opts, WithHeaderCompression(false))
	}
	var files []tfile
	seen := map[string]bool{}
	mt := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for len(b) >= 2 && len(files) < 64 {
		kind, nl := b[0], int(b[1])%24+1
		b = b[2:]
		if len(b) < nl {
			break
		}
		name := fmt.Sprintf("e%d_%x", len(files), b[:nl])
		b = b[nl:]
		if seen[name] {
			continue
		}
		seen[name] = true
		f := tfile{name: name, mode: fs.FileMode(kind&7)<<6 | 0o044, mtime: mt.Add(time.Duration(kind) * time.Second)}
		switch kind >> 6 {
		case 0, 1:
			n := 0
			if len(b) >= 2 {
				n = int(b[0]) | int(b[1])<<8
				b = b[2:]
			}
			n = min(n, len(b))
			f.data, b = b[:n], b[n:]
			if f.data == nil {
				f.data = []byte{}
			}
			if kind&0x20 != 0 && len(f.data) > 0 {
				// Repeat it: compressible data longer than the input.
				f.data = bytes.Repeat(f.data, 1+int(kind&0x1F)*50)
				f.data = f.data[:min(len(f.data), 256<<10)]
			}
		case 2:
			f.dir = true
			f.mode |= fs.ModeDir
		case 3:
			f.link = "target/" + name
			f.mode = 0o777
		}
		files = append(files, f)
	}
	return opts, files, pw
}

// FuzzWriter writes arbitrary trees with arbitrary options and reads
// them back with our reader: names, types, modes, times and contents
// must come back as written.
func FuzzWriter(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 'a', 'b', 'c', 5, 0, 'h', 'e', 'l', 'l', 'o'})
	f.Add([]byte{1, 4, 0x20, 1, 'x', 3, 0, 'a', 'b', 'c', 0x80, 2, 'd', 'd', 0xC0, 1, 'l'})
	f.Add([]byte{0x12, 0x0E, 0x05, 4, 'e', 'x', 'e', '1', 8, 0, 0xE8, 0, 0, 0, 0, 0xE8, 1, 2})
	f.Add([]byte{0x32, 0x83, 0x3F, 2, 'q', 'q', 20, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{0x81, 0x0D, 0, 1, 'z', 0, 0, 0x80, 1, 'y'})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 512<<20)()
		opts, files, pw := fuzzTree(b)
		if opts == nil {
			return
		}
		out := writeArchive(t, files, opts...)
		checkOurs(t, out, files, pw)
	})
}
