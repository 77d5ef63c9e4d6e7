package ppmd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkReader7zMixed8M decodes the first 8 MiB of the workload's
// mixed-0.bin (64 random and 64 text chunks) packed the way the 7z-ppmd
// workload benchmark is (7zz -t7z -m0=PPMd -mx5: order 6, 16 MiB), a
// few seconds per run instead of a minute. Like BenchmarkReaderZipMixed8M
// it reports the CPU time per run next to `7zz t -mmt1` on the same
// archive, timed in the same run (7zz-cpu-s/op, ratio).
func BenchmarkReader7zMixed8M(b *testing.B) {
	if _, err := exec.LookPath("7zz"); err != nil {
		b.Skip("7zz not installed")
	}
	arch := testutil.MixedArchive(b, "7z-ppmd-mixed0-8m.7z", "sh", "-c",
		`d=$(mktemp -d) && head -c 8388608 "$1" > "$d/mixed-0-8m.bin" && `+
			`7zz a -t7z -m0=PPMd -mx5 -mmt1 -mhc=off "$0" "$d/mixed-0-8m.bin" >/dev/null; s=$?; rm -r "$d"; exit $s`, "{out}")
	out, err := exec.Command("7zz", "l", "-slt", arch).Output()
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Contains(out, []byte("Method = PPMD:o6:mem24")) {
		b.Fatalf("unexpected method:\n%s", out)
	}
	data, err := os.ReadFile(arch)
	if err != nil {
		b.Fatal(err)
	}
	next := int64(binary.LittleEndian.Uint64(data[12:]))
	packed := data[32 : 32+next]
	const size = 8 << 20
	src := bytes.NewReader(packed)
	in := bufio.NewReaderSize(src, 32<<10) // as sevenzip reads a folder
	buf := make([]byte, 32<<10)
	z := new(Reader7z)
	defer z.Close()
	decode := func() {
		src.Reset(packed)
		in.Reset(src)
		if err := z.Reset(in, 6, 1<<24, size); err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			k, err := z.Read(buf)
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if n != size {
			b.Fatalf("decoded %d of %d bytes", n, size)
		}
	}
	decode() // warm the pools
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testutil.CPUTime()
	for i := 0; i < b.N; i++ {
		decode()
	}
	ours := (testutil.CPUTime() - cpu0) / time.Duration(b.N)
	b.StopTimer()
	b.ReportMetric(ours.Seconds(), "cpu-s/op")
	cmd := exec.Command("7zz", "t", "-mmt1", arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("7zz t: %v\n%s", err, out)
	}
	ref := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	b.ReportMetric(ref.Seconds(), "7zz-cpu-s/op")
	b.ReportMetric(ours.Seconds()/ref.Seconds(), "ratio")
}
