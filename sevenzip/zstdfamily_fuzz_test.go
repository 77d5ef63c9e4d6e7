package sevenzip

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// zstdFamilyChains are the coder chains FuzzZstdFamily puts over its
// input: each of the three coders alone, the two Swap filters (over the
// input itself, and over ZSTD), and BROTLI without 7-Zip-zstd's frames.
var zstdFamilyChains = [][]coderSpec{
	{{id: []byte{0x04, 0xF7, 0x11, 0x01}, props: []byte{1, 5, 3, 0, 0}}},
	{{id: []byte{0x04, 0xF7, 0x11, 0x02}, props: []byte{1, 0, 5}}},
	{{id: []byte{0x04, 0xF7, 0x11, 0x04}, props: []byte{1, 9, 5, 0, 0}}},
	{{id: []byte{0x02, 0x03, 0x02}}},
	{{id: []byte{0x02, 0x03, 0x04}}, {id: []byte{0x04, 0xF7, 0x11, 0x01}, props: []byte{1, 5, 3, 0, 0}}},
	{{id: []byte{0x04, 0xF7, 0x11, 0x02}, props: []byte{1, 0, 5}}}, // a bare brotli stream, without frames
}

// fuzzHeader7zx is a plain header of about 2 KiB (one empty file with a
// long name): what the fuzzed coders decode, as an encoded header.
func fuzzHeader7zx() []byte {
	name := utf16.Encode([]rune(strings.Repeat("zstd-brotli-lz4/", 60) + "f"))
	nb := make([]byte, 0, 2*len(name)+3)
	nb = append(nb, 0) // not external
	for _, u := range name {
		nb = append(nb, byte(u), byte(u>>8))
	}
	nb = append(nb, 0, 0)
	return cat([]byte{idHeader, idFilesInfo, 1, idName}, num(uint64(len(nb))), nb, []byte{idEmptyStream, 1, 0x80, idEnd, idEnd})
}

// encode7zxChain encodes b as chain i of zstdFamilyChains does.
func encode7zxChain(tb testutil.TB, i int, b []byte) []byte {
	var out bytes.Buffer
	switch i {
	case 0:
		z, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		return z.EncodeAll(b, nil)
	case 1:
		var e brotliEnc
		e.reset(&out, 5)
		if _, err := e.Write(b); err != nil || e.Close() != nil {
			tb.Fatal("brotli encoder failed")
		}
	case 2:
		w := lz4.NewWriter(&out)
		if _, err := w.Write(b); err != nil || w.Close() != nil {
			tb.Fatal("lz4 encoder failed")
		}
	case 5:
		w := brotli.NewWriterLevel(&out, 5)
		if _, err := w.Write(b); err != nil || w.Close() != nil {
			tb.Fatal("brotli encoder failed")
		}
	case 3, 4:
		w := bcj.NewWriter(&out, [2]bcj.Kind{bcj.Swap2, bcj.Swap4}[i-3], 0, 0)
		if _, err := w.Write(b); err != nil || w.Close() != nil {
			tb.Fatal("swap encoder failed")
		}
		if i == 4 {
			return encode7zxChain(tb, 0, out.Bytes())
		}
	}
	return out.Bytes()
}

// FuzzZstdFamily feeds arbitrary bytes to the ZSTD, BROTLI and LZ4
// decoders and the Swap filters, as the encoded header of an archive
// (chain picks the coders): no input may panic, hang or allocate beyond
// what the limits admit. Its seeds are the header encoded by each chain.
func FuzzZstdFamily(f *testing.F) {
	hdr := fuzzHeader7zx()
	for i := range zstdFamilyChains {
		f.Add(uint8(i), encode7zxChain(f, i, hdr))
	}
	lim := arc.Limits{MaxDictionary: 16 << 20, MaxMemory: 40 << 20, MaxHeaderMemory: 16 << 20, MaxEntries: 1 << 12}
	f.Fuzz(func(t *testing.T, chain uint8, packed []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		data := encodedArchive(nil, hdr, zstdFamilyChains[int(chain)%len(zstdFamilyChains)], packed)
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: lim}))
		if err == nil {
			if es := a.Entries(); len(es) != 1 {
				t.Fatalf("header decoded to %d entries", len(es))
			}
			a.Close()
		}
	})
}

// TestFuzzZstdFamilySeeds: every seed decodes (the fuzzer starts from
// inputs that reach the end of each decoder).
func TestFuzzZstdFamilySeeds(t *testing.T) {
	hdr := fuzzHeader7zx()
	for i, chain := range zstdFamilyChains {
		data := encodedArchive(nil, hdr, chain, encode7zxChain(t, i, hdr))
		a, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("chain %d: %v", i, err)
		}
		if es := a.Entries(); len(es) != 1 || !strings.HasSuffix(es[0].Name, "/f") {
			t.Fatalf("chain %d: entries %v", i, es)
		}
		a.Close()
	}
}
