package lzma

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// encodeCase is one case of BenchmarkEncode: mixed-0.bin of the workload
// (50 MiB) at a 7-Zip level, on threads goroutines.
type encodeCase struct {
	name    string
	level   int
	threads int
	// blockSize of the multi-threaded case. 7-Zip's block size for
	// level 5 (4 x 32 MiB) would make 50 MiB one block, and 7zz -mmt2
	// itself does not cut LZMA2 into blocks at -mx5 (it runs its match
	// finder on a second thread); 8 MiB blocks give two goroutines seven
	// blocks to share.
	blockSize int64
}

var encodeCases = []encodeCase{
	{name: "mixed-50-l5", level: 5, threads: 1},
	{name: "mixed-50-l5-mt2", level: 5, threads: 2, blockSize: 8 << 20},
	{name: "mixed-50-l1", level: 1, threads: 1},
	{name: "mixed-50-l9", level: 9, threads: 1},
}

// opts returns the writer options of c.
func (c encodeCase) opts() []WriterOption {
	o := []WriterOption{Level(c.level)}
	if c.threads > 1 {
		o = append(o, Threads(c.threads))
	}
	if c.blockSize > 0 {
		o = append(o, BlockSize(c.blockSize))
	}
	return o
}

// sevenZipArgs is the 7zz command line of c, writing archive out.
func (c encodeCase) sevenZipArgs(out string) []string {
	return []string{"a", "-t7z", "-m0=lzma2", fmt.Sprintf("-mx%d", c.level), fmt.Sprintf("-mmt%d", c.threads),
		"-mhc=off", "-bd", "-bso0", "-bsp0", "-y", out, testutil.MixedName(0)}
}

// mixed0 returns mixed-0.bin of the workload, from the cache (written
// there first when missing).
func mixed0(b *testing.B) (data []byte, dir string) {
	b.Helper()
	dir = testutil.MixedDir(b)
	data, err := os.ReadFile(filepath.Join(dir, testutil.MixedName(0)))
	if err != nil {
		b.Fatal(err)
	}
	if len(data) != testutil.MixedFileSize {
		b.Fatalf("mixed-0.bin has %d bytes, want %d", len(data), testutil.MixedFileSize)
	}
	return data, dir
}

// BenchmarkEncode compresses mixed-0.bin (50 MiB) to LZMA2 with this
// package (impl unarc) and with 7zz as a process on the same file (impl
// 7zz: `7zz a -t7z -m0=lzma2 -mxN -mmtT`). Each reports the compressed
// bytes (for 7zz: the packed stream, without the 7z headers) and the CPU
// time (user + system; for 7zz the child's). The comparison with
// ulikunitz/xz is BenchmarkEncode of the bench module, which runs all
// three. All cases encode 50 MiB and are skipped under -short.
func BenchmarkEncode(b *testing.B) {
	for _, c := range encodeCases {
		b.Run(c.name, func(b *testing.B) {
			if testing.Short() {
				b.Skip("encodes 50 MiB; run without -short")
			}
			b.Run("unarc", func(b *testing.B) {
				data, _ := mixed0(b)
				benchEncodeUnarc(b, data, c.opts())
			})
			b.Run("7zz", func(b *testing.B) {
				_, dir := mixed0(b)
				benchEncode7zz(b, dir, c)
			})
		})
	}
}

// benchEncodeUnarc times Reset, Write and Close of a Writer2 over data
// (no untimed warm-up: one encode of 50 MiB is tens of seconds). The last
// stream is decoded outside the timer and compared with data.
func benchEncodeUnarc(b *testing.B, data []byte, opts []WriterOption) {
	out := bytes.NewBuffer(make([]byte, 0, len(data)+len(data)/8))
	w, err := NewWriter2(out, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		out.Reset()
		if err := w.Reset(out); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b, int64(len(data)))
	b.StopTimer()
	b.ReportMetric(float64(out.Len()), "bytes")
	dict, _ := DictSizeLZMA2(w.DictByte())
	r, err := NewReader2(bytes.NewReader(out.Bytes()), dict, int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, data) {
		b.Fatalf("round trip failed (%d bytes): %v", len(got), err)
	}
}

// benchEncode7zz runs 7zz on mixed-0.bin in dir b.N times and reports
// the packed size of the LZMA2 stream and the child's CPU time. It skips
// when 7zz is missing.
func benchEncode7zz(b *testing.B, dir string, c encodeCase) {
	if _, err := exec.LookPath("7zz"); err != nil {
		b.Skip("7zz not installed (../shared/tools/install-reference-tools.sh installs it)")
	}
	out := filepath.Join(b.TempDir(), "out.7z")
	b.SetBytes(testutil.MixedFileSize)
	var cpu time.Duration
	var packed int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		os.Remove(out) // 7zz a would update an existing archive
		b.StartTimer()
		cmd := exec.Command("7zz", c.sevenZipArgs(out)...)
		cmd.Dir = dir
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("7zz: %v\n%s", err, o)
		}
		b.StopTimer()
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		packed = packedSize7z(b, out)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(packed), "bytes")
}

// packedSize7z returns the size of the packed streams of a 7z archive
// written with -mhc=off: the next header starts right after them.
func packedSize7z(b *testing.B, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var h [32]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:6]) != "7z\xbc\xaf\x27\x1c" {
		b.Fatalf("%s: not a 7z archive (%v)", path, err)
	}
	return int64(binary.LittleEndian.Uint64(h[12:20]))
}
