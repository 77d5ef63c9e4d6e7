package testutil

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Shared by the benchmarks of the lzma package and the bench module:
// CPU time next to the wall time, and the LZMA2 encode workload.

// CPUTimer reports the process CPU time per operation next to the wall
// time: on a shared, loaded machine it is the steadier figure for
// comparing two coders run side by side.
type CPUTimer struct{ start time.Duration }

// StartCPU starts a CPUTimer.
func StartCPU() CPUTimer { return CPUTimer{CPUTime()} }

// Report adds cpu-ms/op and cpu-MB/s metrics for b.N operations of size
// bytes each.
func (c CPUTimer) Report(b *testing.B, size int64) {
	d := CPUTime() - c.start
	b.ReportMetric(float64(d.Milliseconds())/float64(b.N), "cpu-ms/op")
	if d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}

// EncodeCase is one case of the LZMA2 encode benchmarks: mixed-0.bin of
// the workload (50 MiB) at a 7-Zip level, on Threads goroutines.
type EncodeCase struct {
	Name    string
	Level   int
	Threads int
	// BlockSize of the multi-threaded case. 7-Zip's block size for
	// level 5 (4 x 32 MiB) would make 50 MiB one block, and 7zz -mmt2
	// itself does not cut LZMA2 into blocks at -mx5 (it runs its match
	// finder on a second thread); 8 MiB blocks give two goroutines seven
	// blocks to share.
	BlockSize int64
}

// EncodeCases are the cases of BenchmarkEncode in the lzma package and
// in the bench module.
var EncodeCases = []EncodeCase{
	{Name: "mixed-50-l5", Level: 5, Threads: 1},
	{Name: "mixed-50-l5-mt2", Level: 5, Threads: 2, BlockSize: 8 << 20},
	{Name: "mixed-50-l1", Level: 1, Threads: 1},
	{Name: "mixed-50-l9", Level: 9, Threads: 1},
}

// Mixed0 returns mixed-0.bin of the workload and the folder it is in
// (the cache, where it is written first when missing).
func Mixed0(b *testing.B) (data []byte, dir string) {
	b.Helper()
	dir = MixedDir(b)
	data, err := os.ReadFile(filepath.Join(dir, MixedName(0)))
	if err != nil {
		b.Fatal(err)
	}
	if len(data) != MixedFileSize {
		b.Fatalf("mixed-0.bin has %d bytes, want %d", len(data), MixedFileSize)
	}
	return data, dir
}

// BenchEncode times encode over data b.N times (each encode costs tens
// of seconds to minutes: there is no untimed warm-up run), reporting the
// CPU time and the stream's size. The stream of the last run is then
// decoded with decode, outside the timer, and compared with data.
func BenchEncode(b *testing.B, data []byte, encode func(io.Writer) error, decode func([]byte) (io.Reader, error)) {
	out := bytes.NewBuffer(make([]byte, 0, len(data)+len(data)/8))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := StartCPU()
	for range b.N {
		out.Reset()
		if err := encode(out); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, int64(len(data)))
	b.StopTimer()
	b.ReportMetric(float64(out.Len()), "bytes")
	r, err := decode(out.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	got, err := io.ReadAll(io.LimitReader(r, int64(len(data))+1))
	if c, ok := r.(io.Closer); ok {
		c.Close()
	}
	if err != nil || !bytes.Equal(got, data) {
		b.Fatalf("round trip failed (%d bytes): %v", len(got), err)
	}
}

// BenchEncode7zz runs `7zz a -t7z -m0=lzma2 -mxN -mmtT -mhc=off` on
// mixed-0.bin in dir b.N times and reports the packed stream's size and
// the child's CPU time. It skips when 7zz is missing.
func BenchEncode7zz(b *testing.B, dir string, c EncodeCase) {
	if _, err := exec.LookPath("7zz"); err != nil {
		b.Skip("7zz not installed (../shared/tools/install-reference-tools.sh installs it)")
	}
	out := filepath.Join(b.TempDir(), "out.7z")
	args := []string{"a", "-t7z", "-m0=lzma2", fmt.Sprintf("-mx%d", c.Level), fmt.Sprintf("-mmt%d", c.Threads),
		"-mhc=off", "-bd", "-bso0", "-bsp0", "-y", out, MixedName(0)}
	b.SetBytes(MixedFileSize)
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

// mixedDeflate is mixed-0.bin compressed once with compress/flate.
var mixedDeflate struct {
	once sync.Once
	raw  []byte // the Deflate stream
	size int64  // uncompressed size
}

// MixedDeflate is mixed-0.bin (52 MB) compressed once at level 5 with
// compress/flate, kept in memory for every benchmark, and its size.
func MixedDeflate() ([]byte, int64) {
	mixedDeflate.once.Do(func() {
		data := Mixed(0)
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, 5)
		w.Write(data)
		w.Close()
		mixedDeflate.raw, mixedDeflate.size = buf.Bytes(), int64(len(data))
	})
	return mixedDeflate.raw, mixedDeflate.size
}

// ReusedWriterTo returns a decode of data with one reused decoder: reset
// points it at a fresh reader of data and returns it, and its WriteTo
// writes the output, whose size the decode returns; it fails b where
// either fails. It decodes once first and fails b unless that gives
// want.
func ReusedWriterTo(b *testing.B, data, want []byte, reset func(io.Reader) (io.WriterTo, error)) func(io.Writer) int64 {
	b.Helper()
	var br bytes.Reader
	decode := func(w io.Writer) int64 {
		br.Reset(data)
		z, err := reset(&br)
		if err != nil {
			b.Fatal(err)
		}
		n, err := z.WriteTo(w)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	var got bytes.Buffer
	decode(&got)
	if !bytes.Equal(got.Bytes(), want) {
		b.Fatal("decoded data differs from mixed-0.bin")
	}
	return decode
}

// Resetter is an encoder that Reset points at a new destination.
type Resetter interface {
	Reset(dst io.Writer) error
	io.WriteCloser
}

// EncodeWith is BenchEncode's encode for a reused encoder w: Reset to
// the destination, write data, Close.
func EncodeWith(w Resetter, data []byte) func(io.Writer) error {
	return func(dst io.Writer) error {
		if err := w.Reset(dst); err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
		return w.Close()
	}
}
