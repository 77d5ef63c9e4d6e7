package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	xlzma "github.com/ulikunitz/xz/lzma"

	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/testutil"
)

// sevenZipDict is 7-Zip's LZMA2 dictionary for a level (64-bit builds;
// CPP/7zip/Common/MethodProps.h, Get_Lzma_DicSize), the DictCap given to
// ulikunitz so both encoders work with the same window.
func sevenZipDict(level int) int {
	switch {
	case level <= 4:
		return 1 << (level*2 + 16)
	case level <= 8:
		return 1 << (level + 20)
	}
	return 1 << 28
}

// BenchmarkEncode compresses mixed-0.bin (50 MiB) to LZMA2 with unarc's
// lzma.Writer2, with ulikunitz/xz's lzma.Writer2 (the level's dictionary
// and its HashTable4 matcher at every level: its BinaryTree matcher, the
// counterpart of 7-Zip's BT4 at levels 5-9, did not finish 4 MiB of the
// workload in 9 minutes, so 50 MiB would take hours; it has no thread
// option, so the mt2 case runs it on one goroutine) and with 7zz as a
// process on the same file. Each
// reports the compressed bytes (7zz: its packed stream, without the 7z
// headers) and the CPU time per encode (7zz: the child's).
//
//	cd bench && go test -run '^$' -bench 'Encode/' -benchtime 1x -timeout 2h
func BenchmarkEncode(b *testing.B) {
	for _, c := range testutil.EncodeCases {
		b.Run(c.Name, func(b *testing.B) {
			if testing.Short() {
				b.Skip("encodes 50 MiB; run without -short")
			}
			b.Run("unarc", func(b *testing.B) {
				data, _ := testutil.Mixed0(b)
				opts := []lzma.WriterOption{lzma.Level(c.Level)}
				if c.Threads > 1 {
					opts = append(opts, lzma.Threads(c.Threads), lzma.BlockSize(c.BlockSize))
				}
				w, err := lzma.NewWriter2(io.Discard, opts...)
				if err != nil {
					b.Fatal(err)
				}
				dict, _ := lzma.DictSizeLZMA2(w.DictByte())
				testutil.BenchEncode(b, data, testutil.EncodeWith(w, data), func(packed []byte) (io.Reader, error) {
					return lzma.NewReader2(bytes.NewReader(packed), dict, int64(len(data)))
				})
			})
			b.Run("ulikunitz", func(b *testing.B) {
				data, _ := testutil.Mixed0(b)
				cfg := xlzma.Writer2Config{DictCap: sevenZipDict(c.Level), Matcher: xlzma.HashTable4}
				testutil.BenchEncode(b, data, func(dst io.Writer) error {
					w, err := cfg.NewWriter2(dst)
					if err != nil {
						return err
					}
					if _, err := w.Write(data); err != nil {
						return err
					}
					return w.Close()
				}, func(packed []byte) (io.Reader, error) {
					return xlzma.Reader2Config{DictCap: cfg.DictCap}.NewReader2(bytes.NewReader(packed))
				})
			})
			b.Run("7zz", func(b *testing.B) {
				_, dir := testutil.Mixed0(b)
				testutil.BenchEncode7zz(b, dir, c)
			})
		})
	}
}

// encInputs are the round-trip inputs: random, text, zeros, the mixed
// workload's first 3 MiB (random and text chunks), empty and one byte.
func encInputs(tb testing.TB) []struct {
	name string
	data []byte
} {
	rnd := make([]byte, 200<<10)
	rand.NewChaCha8([32]byte{1}).Read(rnd)
	var text []byte
	for i := 0; len(text) < 300<<10; i++ {
		text = fmt.Appendf(text, "%d: it was the best of times, it was the worst of times (%d)\n", i, i*31%1000)
	}
	mixed := testutil.Mixed(0)[:3<<20]
	if testing.Short() {
		mixed = mixed[:600<<10]
	}
	return []struct {
		name string
		data []byte
	}{
		{"random", rnd}, {"text", text}, {"zeros", make([]byte, 500<<10)},
		{"mixed", mixed}, {"empty", nil}, {"one", []byte{0x5a}},
	}
}

// writeIn writes data to w in pieces of chunk bytes (0: at once).
func writeIn(tb testing.TB, w io.Writer, data []byte, chunk int) {
	tb.Helper()
	if chunk <= 0 {
		chunk = max(len(data), 1)
	}
	for p := data; len(p) > 0; {
		k := min(chunk, len(p))
		if _, err := w.Write(p[:k]); err != nil {
			tb.Fatal(err)
		}
		p = p[k:]
	}
}

// TestEncodeULikunitz decodes unarc's encoder output with ulikunitz/xz:
// LZMA2 (one thread and the block mode with several) with its
// lzma.Reader2, and the .lzma form with its lzma.Reader, for every
// input, every lc/lp/pb combination LZMA2 allows (on one input; the
// others at the defaults), and one-byte writes.
func TestEncodeULikunitz(t *testing.T) {
	type variant struct {
		name  string
		opts  []lzma.WriterOption
		chunk int
	}
	var variants []variant
	for _, level := range []int{1, 5} {
		variants = append(variants,
			variant{fmt.Sprintf("l%d", level), []lzma.WriterOption{lzma.Level(level)}, 0},
			variant{fmt.Sprintf("l%d-mt3", level), []lzma.WriterOption{lzma.Level(level), lzma.Threads(3), lzma.BlockSize(64 << 10)}, 0},
		)
	}
	variants = append(variants, variant{"l1-bytewise", []lzma.WriterOption{lzma.Level(1)}, 1})
	inputs := encInputs(t)
	for _, in := range inputs {
		for _, v := range variants {
			if v.chunk == 1 && len(in.data) > 64<<10 {
				continue // one-byte writes of the short inputs only
			}
			checkULikunitz2(t, in.name+"/"+v.name, in.data, v.chunk, v.opts...)
			checkULikunitzAlone(t, in.name+"/"+v.name, in.data, v.chunk, v.opts...)
		}
	}
	data := inputs[1].data[:64<<10]
	for lc := 0; lc <= 4; lc++ {
		for lp := 0; lc+lp <= 4; lp++ {
			for pb := 0; pb <= 4; pb++ {
				name := fmt.Sprintf("text/lc%d-lp%d-pb%d", lc, lp, pb)
				checkULikunitz2(t, name, data, 0, lzma.Level(5), lzma.LiteralBits(lc, lp, pb))
				checkULikunitzAlone(t, name, data, 0, lzma.Level(5), lzma.LiteralBits(lc, lp, pb))
			}
		}
	}
}

func checkULikunitz2(t *testing.T, name string, data []byte, chunk int, opts ...lzma.WriterOption) {
	t.Helper()
	var buf bytes.Buffer
	w, err := lzma.NewWriter2(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	writeIn(t, w, data, chunk)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dict, _ := lzma.DictSizeLZMA2(w.DictByte())
	r, err := xlzma.Reader2Config{DictCap: int(max(dict, xlzma.MinDictCap))}.NewReader2(&buf)
	if err != nil {
		t.Fatalf("%s: LZMA2: %v", name, err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%s: LZMA2: ulikunitz decoded %d of %d bytes: %v", name, len(got), len(data), err)
	}
	if !r.EOS() {
		t.Fatalf("%s: LZMA2: ulikunitz saw no end of stream", name)
	}
}

func checkULikunitzAlone(t *testing.T, name string, data []byte, chunk int, opts ...lzma.WriterOption) {
	t.Helper()
	for _, sized := range []bool{false, true} {
		if sized && len(data) == 0 {
			// Header size 0 and the 5 bytes of a flushed range coder:
			// what the LZMA SDK writes, and 7zz and xz read it, but
			// ulikunitz's reader ends with io.ErrUnexpectedEOF.
			continue
		}
		var buf bytes.Buffer
		o := opts
		if sized {
			o = append(o[:len(o):len(o)], lzma.KnownSize(int64(len(data))))
		}
		w, err := lzma.NewWriterLZMAHeader(&buf, o...)
		if err != nil {
			t.Fatal(err)
		}
		writeIn(t, w, data, chunk)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if sized && binary.LittleEndian.Uint64(buf.Bytes()[5:13]) != uint64(len(data)) {
			t.Fatalf("%s: .lzma header size is not %d", name, len(data))
		}
		r, err := xlzma.NewReader(&buf)
		if err != nil {
			t.Fatalf("%s: .lzma (sized %v): %v", name, sized, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: .lzma (sized %v): ulikunitz decoded %d of %d bytes: %v", name, sized, len(got), len(data), err)
		}
	}
}
