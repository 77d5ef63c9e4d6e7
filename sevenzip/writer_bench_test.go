package sevenzip

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// writeCase is one cell of the seed profile's matrix.
type writeCase struct {
	name  string
	opts  []WriterOption
	files []tfile
}

// seedMatrix is {LZMA, LZMA2} × {plain, AES data, AES data+headers} ×
// {one 256 KiB random file, 100 files of 128 bytes}, 4 KiB dictionary.
// cycles is the key derivation power (19 is 7-Zip's default).
func seedMatrix(cycles int) []writeCase {
	r := rand.New(rand.NewPCG(42, 42))
	big := make([]byte, 256<<10)
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	one := []tfile{{name: "random.bin", data: big}}
	var small []tfile
	for i := 0; i < 100; i++ {
		d := make([]byte, 128)
		for j := range d {
			d[j] = byte(r.Uint32())
		}
		small = append(small, tfile{name: fmt.Sprintf("dir/file%03d.dat", i), data: d})
	}
	var cases []writeCase
	for _, m := range []Method{LZMA, LZMA2} {
		for _, enc := range []string{"plain", "aes", "aes-he"} {
			for _, in := range []struct {
				name  string
				files []tfile
			}{{"256k", one}, {"100x128", small}} {
				opts := []WriterOption{WithMethod(m), WithDictSize(4 << 10), WithRandom(rand.NewChaCha8([32]byte{1}))}
				switch enc {
				case "aes":
					opts = append(opts, WithPassword("password"), WithKDFCycles(cycles))
				case "aes-he":
					opts = append(opts, WithPassword("password"), WithKDFCycles(cycles), WithEncryptedHeaders())
				}
				name := fmt.Sprintf("%s-%s-%s", map[Method]string{LZMA: "lzma", LZMA2: "lzma2"}[m], enc, in.name)
				cases = append(cases, writeCase{name, opts, in.files})
			}
		}
	}
	return cases
}

// writeInto writes c into m (reset, its buffer kept).
func writeInto(tb testutil.TB, m *memFile, c *writeCase) {
	m.b, m.off = m.b[:0], 0
	zw, err := NewWriter(m, c.opts...)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range c.files {
		f := &c.files[i]
		ew, err := zw.Create(f.name)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := ew.Write(f.data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestWriterAllocBound: once pools are warm, every case of the seed
// matrix allocates at most 16 KiB per archive written (SharpCompress:
// 1.16 MB to 6.6 MB after its fix).
func TestWriterAllocBound(t *testing.T) {
	if testing.CoverMode() != "" || testutil.RaceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	for _, c := range seedMatrix(10) {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && strings.HasSuffix(c.name, "-256k") && !strings.HasPrefix(c.name, "lzma2-aes-he") {
				t.Skip("the 256 KiB cases take seconds; -short keeps one")
			}
			m := memFile{b: make([]byte, 0, 1<<20)}
			writeInto(t, &m, &c)
			writeInto(t, &m, &c)
			checkOurs(t, m.b, c.files, "password")
			// Enough archives that a GC emptying the small pool classes
			// (sync.Pool) during the run is averaged as in steady state.
			const runs = 20
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := 0; i < runs; i++ {
				writeInto(t, &m, &c)
			}
			runtime.ReadMemStats(&after)
			perOp := (after.TotalAlloc - before.TotalAlloc) / runs
			t.Logf("%d B/op, %d allocs/op", perOp, (after.Mallocs-before.Mallocs)/runs)
			if perOp > 16<<10 {
				t.Errorf("%d bytes allocated per archive, want at most 16 KiB", perOp)
			}
		})
	}
}

// BenchmarkWrite times whole archives: the seed matrix into a
// preallocated buffer, and the mixed-200 workload at level 5 against
// 7zz in the same run.
func BenchmarkWrite(b *testing.B) {
	for _, c := range seedMatrix(19) {
		b.Run(c.name, func(b *testing.B) {
			m := memFile{b: make([]byte, 0, 1<<20)}
			writeInto(b, &m, &c) // warm the pools
			b.ReportAllocs()
			for b.Loop() {
				writeInto(b, &m, &c)
			}
			b.ReportMetric(float64(len(m.b)), "bytes")
		})
	}
	b.Run("mixed-200-l5", func(b *testing.B) {
		if testing.Short() {
			b.Skip("mixed-200 is 200 MiB")
		}
		dir := testutil.MixedDir(b)
		var out discardAt
		b.SetBytes(testutil.MixedFiles * testutil.MixedFileSize)
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			out = discardAt{}
			zw, err := NewWriter(&out, WithMethod(LZMA2), WithLevel(5), WithDictSize(8<<20), WithThreads(1))
			if err != nil {
				b.Fatal(err)
			}
			if err := zw.AddFS(os.DirFS(dir)); err != nil {
				b.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(out.n), "bytes")
	})
	b.Run("mixed-200-7zz", func(b *testing.B) {
		if testing.Short() {
			b.Skip("mixed-200 is 200 MiB")
		}
		if _, err := exec.LookPath("7zz"); err != nil {
			b.Skip("7zz not installed")
		}
		dir := testutil.MixedDir(b)
		out := filepath.Join(b.TempDir(), "out.7z")
		b.SetBytes(testutil.MixedFiles * testutil.MixedFileSize)
		var size int64
		cpu := childCPU()
		for b.Loop() {
			os.Remove(out)
			cmd := exec.Command("7zz", "a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", out,
				"mixed-0.bin", "mixed-1.bin", "mixed-2.bin", "mixed-3.bin")
			cmd.Dir = dir
			if o, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("7zz: %v\n%s", err, o)
			}
			st, _ := os.Stat(out)
			size = st.Size()
		}
		b.ReportMetric((childCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(size), "bytes")
	})
}

// discardAt is an io.WriterAt that keeps only the size.
type discardAt struct{ n int64 }

func (d *discardAt) WriteAt(p []byte, off int64) (int, error) {
	if e := off + int64(len(p)); e > d.n {
		d.n = e
	}
	return len(p), nil
}

func (d *discardAt) Write(p []byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// TestWriterWriteNoAllocs: an entry's Write allocates nothing, byte-sized
// writes included, through filter, encoder and AES.
func TestWriterWriteNoAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	for _, opts := range [][]WriterOption{
		{WithMethod(Copy), WithPassword("p"), WithKDFCycles(1)},
		{WithMethod(LZMA2), WithDictSize(1 << 16), WithFilter(FilterX86), WithPassword("p"), WithKDFCycles(1)},
		{WithMethod(LZMA), WithDictSize(1 << 16), WithDelta(2)},
	} {
		m := memFile{b: make([]byte, 0, 4<<20)}
		zw, err := NewWriter(&m, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ew, _ := zw.Create("f")
		one := []byte{0xE8}
		chunk := make([]byte, 1000)
		for i := range chunk {
			chunk[i] = byte(i * 7)
		}
		ew.Write(chunk) // open the folder
		allocs := testing.AllocsPerRun(2000, func() {
			ew.Write(one)
			ew.Write(chunk[:37])
		})
		if allocs != 0 {
			t.Errorf("%v allocations per Write", allocs)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
