package bzip2

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// benchStream is the first 8 MiB of mixed-0.bin compressed by bzip2 -9,
// kept in the benchmark cache.
func benchStream(b *testing.B) ([]byte, int64) {
	b.Helper()
	bz, err := exec.LookPath("bzip2")
	if err != nil {
		b.Skip("bzip2 not installed")
	}
	path := filepath.Join(testutil.CacheDir(b), "mixed-0-8m-l9.bz2")
	data, err := os.ReadFile(path)
	if err != nil {
		raw := testutil.Mixed(0)[:8<<20]
		cmd := exec.Command(bz, "-9", "-c")
		cmd.Stdin = bytes.NewReader(raw)
		data, err = cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return data, 8 << 20
}

// BenchmarkDecode compares this package (one and two workers) with
// compress/bzip2 on the same stream in the same run. cpu-ms/op is the
// process CPU time per decode (all goroutines), which a busy machine
// disturbs far less than ns/op.
func BenchmarkDecode(b *testing.B) {
	data, size := benchStream(b)
	b.Run("ours", func(b *testing.B) { benchOurs(b, data, size, 1) })
	b.Run("ours-2workers", func(b *testing.B) { benchOurs(b, data, size, 2) })
	b.Run("stdlib", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		c0 := testutil.CPUTime()
		for b.Loop() {
			n, err := io.Copy(io.Discard, stdbzip2.NewReader(bytes.NewReader(data)))
			if err != nil || n != size {
				b.Fatal(n, err)
			}
		}
		reportCPU(b, c0)
	})
}

func benchOurs(b *testing.B, data []byte, size int64, workers int) {
	b.SetBytes(size)
	b.ReportAllocs()
	z := new(Reader)
	defer z.Close()
	c0 := testutil.CPUTime()
	for b.Loop() {
		if err := z.Reset(bytes.NewReader(data), Workers(workers)); err != nil {
			b.Fatal(err)
		}
		n, err := z.WriteTo(io.Discard)
		if err != nil || n != size {
			b.Fatal(n, err)
		}
	}
	reportCPU(b, c0)
}

func reportCPU(b *testing.B, c0 time.Duration) {
	if c := testutil.CPUSince(c0); c0 >= 0 {
		b.ReportMetric(float64(c.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// blockStarts finds the block magics of a bzip2 stream at any bit offset
// (an accidental match in 8 MiB is unlikely enough for a benchmark).
func blockStarts(data []byte) []int64 {
	var starts []int64
	var v uint64
	for i, c := range data {
		v = v<<8 | uint64(c)
		if i < 7 {
			continue
		}
		for s := range 8 {
			if (v>>s)&(1<<48-1) == blockMagic {
				starts = append(starts, int64(i+1)*8-int64(s)-48)
			}
		}
	}
	slices.Sort(starts)
	return starts
}

// BenchmarkStages times the stages of the block decoder separately over
// the blocks of the benchmark stream, all in one block table as the
// Reader does: symbols (Huffman, MTF, RLE2 into the table), invert
// (linking it, after a copy of the decoded table) and walk (the same,
// then the inverse BWT walk into the block's bytes). SetBytes counts the
// BWT blocks' bytes.
func BenchmarkStages(b *testing.B) {
	data, _ := benchStream(b)
	starts := blockStarts(data)
	d := new(decoder)
	tt := make([]uint32, 900_000)
	var saved [][]uint32
	var infos []blockInfo
	total := 0
	decodeAll := func(keep bool) {
		var br bitReader
		for _, s := range starts {
			br.resetBytes(data[s/8:])
			if _, err := br.bits(uint(s%8)+48, ""); err != nil {
				b.Fatal(err)
			}
			if _, err := br.bits(32, ""); err != nil {
				b.Fatal(err)
			}
			var bi blockInfo
			if err := d.decodeBlock(&br, tt, &bi); err != nil {
				b.Fatal(err)
			}
			if keep {
				saved = append(saved, slices.Clone(tt[:bi.n]))
				infos = append(infos, bi)
				total += bi.n
			}
		}
	}
	decodeAll(true)
	b.Run("symbols", func(b *testing.B) {
		b.SetBytes(int64(total))
		c0 := testutil.CPUTime()
		defer reportCPU(b, c0)
		for b.Loop() {
			decodeAll(false)
		}
	})
	prep := func(k int) []uint32 {
		t := tt[:len(saved[k])]
		copy(t, saved[k])
		clear(d.counts[:])
		for _, e := range t {
			d.counts[byte(e)]++
		}
		return t
	}
	b.Run("invert", func(b *testing.B) {
		b.SetBytes(int64(total))
		c0 := testutil.CPUTime()
		defer reportCPU(b, c0)
		for b.Loop() {
			for k := range saved {
				d.invert(prep(k))
			}
		}
	})
	out := make([]byte, walkCap(900_000))
	walked := make([][]byte, len(saved))
	for k := range saved {
		t := prep(k)
		d.invert(t)
		walked[k] = spanBytes(out, d.w.walk(t, infos[k].origPtr, out))
	}
	b.Run("rle1", func(b *testing.B) {
		b.SetBytes(int64(total))
		c0 := testutil.CPUTime()
		defer reportCPU(b, c0)
		buf := make([]byte, 64<<10)
		var o bytesOut
		for b.Loop() {
			for _, w := range walked {
				o.reset(w, []span{{0, uint32(len(w))}})
				for !o.done() {
					o.emit(buf)
				}
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		b.SetBytes(int64(total))
		c0 := testutil.CPUTime()
		defer reportCPU(b, c0)
		for b.Loop() {
			for k := range saved {
				t := prep(k)
				d.invert(t)
				d.w.walk(t, infos[k].origPtr, out)
			}
		}
	})
}
