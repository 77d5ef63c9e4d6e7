package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	xlzma "github.com/ulikunitz/xz/lzma"

	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/testutil"
)

// encodeCase is one case of BenchmarkEncode: mixed-0.bin of the workload
// (50 MiB) at a 7-Zip level on threads goroutines; the same cases as
// BenchmarkEncode of the lzma package.
type encodeCase struct {
	name      string
	level     int
	threads   int
	blockSize int64 // of the multi-threaded case (see the lzma package's table)
}

var encodeCases = []encodeCase{
	{name: "mixed-50-l5", level: 5, threads: 1},
	{name: "mixed-50-l5-mt2", level: 5, threads: 2, blockSize: 8 << 20},
	{name: "mixed-50-l1", level: 1, threads: 1},
	{name: "mixed-50-l9", level: 9, threads: 1},
}

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

func mixed0(b *testing.B) (data []byte, dir string) {
	b.Helper()
	dir = testutil.MixedDir(b)
	data = loadFile(b, filepath.Join(dir, testutil.MixedName(0)))
	if len(data) != testutil.MixedFileSize {
		b.Fatalf("mixed-0.bin has %d bytes", len(data))
	}
	return data, dir
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
	for _, c := range encodeCases {
		b.Run(c.name, func(b *testing.B) {
			if testing.Short() {
				b.Skip("encodes 50 MiB; run without -short")
			}
			b.Run("unarc", func(b *testing.B) {
				data, _ := mixed0(b)
				opts := []lzma.WriterOption{lzma.Level(c.level)}
				if c.threads > 1 {
					opts = append(opts, lzma.Threads(c.threads), lzma.BlockSize(c.blockSize))
				}
				w, err := lzma.NewWriter2(io.Discard, opts...)
				if err != nil {
					b.Fatal(err)
				}
				dict, _ := lzma.DictSizeLZMA2(w.DictByte())
				encodeBench(b, data, func(dst io.Writer) error {
					if err := w.Reset(dst); err != nil {
						return err
					}
					if _, err := w.Write(data); err != nil {
						return err
					}
					return w.Close()
				}, func(packed []byte) (io.Reader, error) {
					return lzma.NewReader2(bytes.NewReader(packed), dict, int64(len(data)))
				})
			})
			b.Run("ulikunitz", func(b *testing.B) {
				data, _ := mixed0(b)
				cfg := xlzma.Writer2Config{DictCap: sevenZipDict(c.level), Matcher: xlzma.HashTable4}
				encodeBench(b, data, func(dst io.Writer) error {
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
				_, dir := mixed0(b)
				encode7zz(b, dir, c)
			})
		})
	}
}

// encodeBench times encode over data b.N times (each encode costs tens
// of seconds to minutes: there is no untimed warm-up run). The stream of
// the last run is then decoded with decode, outside the timer, and
// compared with data.
func encodeBench(b *testing.B, data []byte, encode func(io.Writer) error, decode func([]byte) (io.Reader, error)) {
	out := bytes.NewBuffer(make([]byte, 0, len(data)+len(data)/8))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		out.Reset()
		if err := encode(out); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b, int64(len(data)))
	b.StopTimer()
	b.ReportMetric(float64(out.Len()), "bytes")
	r, err := decode(out.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	got, err := io.ReadAll(io.LimitReader(r, int64(len(data))+1))
	if err != nil || !bytes.Equal(got, data) {
		b.Fatalf("round trip failed (%d bytes): %v", len(got), err)
	}
}

// encode7zz runs `7zz a -t7z -m0=lzma2 -mxN -mmtT -mhc=off` on
// mixed-0.bin b.N times and reports the packed stream's size (with the
// header uncompressed it starts right after the packed streams) and the
// child's CPU time. It skips when 7zz is missing.
func encode7zz(b *testing.B, dir string, c encodeCase) {
	if _, err := exec.LookPath("7zz"); err != nil {
		b.Skip("7zz not installed (../shared/tools/install-reference-tools.sh installs it)")
	}
	out := filepath.Join(b.TempDir(), "out.7z")
	args := []string{"a", "-t7z", "-m0=lzma2", fmt.Sprintf("-mx%d", c.level), fmt.Sprintf("-mmt%d", c.threads),
		"-mhc=off", "-bd", "-bso0", "-bsp0", "-y", out, testutil.MixedName(0)}
	b.SetBytes(testutil.MixedFileSize)
	var cpu time.Duration
	var packed int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		os.Remove(out) // 7zz a would update an existing archive
		b.StartTimer()
		cmd := exec.Command("7zz", args...)
		cmd.Dir = dir
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("7zz: %v\n%s", err, o)
		}
		b.StopTimer()
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		h := loadFile(b, out)
		if len(h) < 32 || string(h[:6]) != "7z\xbc\xaf\x27\x1c" {
			b.Fatal("7zz wrote no 7z archive")
		}
		packed = int64(binary.LittleEndian.Uint64(h[12:20]))
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(packed), "bytes")
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
