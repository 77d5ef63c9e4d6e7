package lzma

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzEncode encodes arbitrary input under options taken from the first
// bytes (level, lc/lp/pb, match finder, fast bytes, depth, dictionary,
// form, how the input is split into writes and flushes) and checks that
// our decoders give the input back.
func FuzzEncode(f *testing.F) {
	for _, name := range testutil.Glob(f, filepath.Join("..", "..", "testdata", "lzma", "*")) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{5, 0x5d, 0, 0, 0, 0, 0}, b[:min(len(b), 64<<10)]...))
	}
	f.Add(append([]byte{1, 0, 1, 2, 3, 4, 5}, textBytes(20000, 1)...))
	f.Add(append([]byte{9, 0xff, 3, 7, 1, 0, 9}, genMixed(2, 100000)...))
	f.Add(append([]byte{6, 0x2e, 2, 40, 3, 1, 0}, make([]byte, 70000)...))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		if len(in) < 7 {
			return
		}
		o, data := in[:7], in[7:]
		if len(data) > 256<<10 {
			data = data[:256<<10]
		}
		lc, lp, pb := int(o[1]%9), int(o[1]/9%5), int(o[1]/45%5)
		form := o[2] % 4 // 0 raw, 1 .lzma, 2 ZIP, 3 LZMA2
		if form == 3 && lc+lp > 4 {
			lc = 4 - lp
		}
		opts := []WriterOption{
			Level(int(o[0] % 10)),
			LiteralBits(lc, lp, pb),
			DictSize(MinDictSize << (o[3] % 5)), // 4..64 KiB: quick, small tables
		}
		if o[3]&0x80 != 0 {
			opts = append(opts, FastBytes(MinFastBytes+int(o[3]>>3&0xF)*17))
		}
		if o[4]&1 != 0 {
			opts = append(opts, MatchFinder(MatchFinderKind(1+o[4]>>1%3)))
		}
		if o[4]&4 != 0 {
			opts = append(opts, Depth(1+int(o[4]>>3)))
		}
		known := o[5]&1 != 0
		if known {
			opts = append(opts, KnownSize(int64(len(data))))
		}
		if o[5]&2 != 0 {
			opts = append(opts, WriteEndMarker(true))
		}
		// Writes of 1..256 bytes times a factor, or all at once.
		step := len(data)
		if o[6] != 0 {
			step = int(o[6]) * (1 + int(o[5]>>2))
		}
		var buf bytes.Buffer
		var w io.WriteCloser
		var w2 *Writer2
		var err error
		switch form {
		case 0:
			w, err = NewWriter(&buf, opts...)
		case 1:
			w, err = NewWriterLZMAHeader(&buf, opts...)
		case 2:
			w, err = NewWriterZip(&buf, opts...)
		default:
			w2, err = NewWriter2(&buf, opts...)
			w = w2
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(data); i += step {
			if _, err := w.Write(data[i:min(i+step, len(data))]); err != nil {
				t.Fatal(err)
			}
			if w2 != nil && o[5]&0x80 != 0 {
				if err := w2.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var r io.ReadCloser
		size := int64(-1)
		if known {
			size = int64(len(data))
		}
		switch form {
		case 0:
			var p Props
			p, err = DecodeProps(propsOf(w))
			if err == nil {
				r, err = NewReader(&buf, p, size)
			}
		case 1:
			r, err = NewReaderLZMAHeader(&buf)
		case 2:
			r, err = NewReaderZip(&buf, size)
		default:
			var d int64
			d, err = DictSizeLZMA2(w2.DictByte())
			if err == nil {
				r, err = NewReader2(&buf, d, size)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("round trip differs at %d of %d (got %d bytes)", diffAt(got, data), len(data), len(got))
		}
	})
}

func propsOf(w io.WriteCloser) []byte {
	p := w.(*Writer).Props().Encode()
	return p[:]
}
