package ppmd

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkReaderZip decodes the PPMd entries of the 7zz test archives
// with one warm reader (Reset per entry).
func BenchmarkReaderZip(b *testing.B) {
	for _, name := range []string{"ppmd-mx5.zip", "ppmd-cutoff.zip"} {
		es := ppmdEntries(b, zipTestdata(name))
		var total int64
		for _, e := range es {
			total += e.Size
		}
		b.Run(name, func(b *testing.B) {
			z := new(ReaderZip)
			defer z.Close()
			src := new(bytes.Reader)
			buf := make([]byte, 32<<10)
			b.SetBytes(total)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, e := range es {
					src.Reset(e.Packed)
					if err := z.Reset(src, e.Size, 0); err != nil {
						b.Fatal(err)
					}
					for {
						_, err := z.Read(buf)
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// BenchmarkReaderZipMixed8M decodes the first 8 MiB of the workload's
// mixed-0.bin (64 random and 64 text chunks) packed the way the
// zip-ppmd workload benchmark is (7zz -tzip -mm=PPMd -mx5: order 8,
// 16 MiB, restart), a few seconds per run instead of minutes. It reports
// the CPU time per run next to `7zz t -mmt1` on the same archive, timed
// in the same run (7zz-cpu-s/op, ratio).
func BenchmarkReaderZipMixed8M(b *testing.B) {
	arch := testutil.MixedArchive(b, "zip-ppmd-mixed0-8m.zip", "sh", "-c",
		`d=$(mktemp -d) && head -c 8388608 "$1" > "$d/mixed-0-8m.bin" && `+
			`7zz a -tzip -mm=PPMd -mx5 -mmt1 "$0" "$d/mixed-0-8m.bin" >/dev/null; s=$?; rm -r "$d"; exit $s`, "{out}")
	es := ppmdEntries(b, arch)
	if len(es) != 1 || es[0].Size != 8<<20 {
		b.Fatalf("%s: unexpected entries", arch)
	}
	e := es[0]
	z := new(ReaderZip)
	defer z.Close()
	src := new(bytes.Reader)
	in := bufio.NewReaderSize(src, 32<<10) // as zip reads it
	buf := make([]byte, 32<<10)
	decode := func() {
		src.Reset(e.Packed)
		in.Reset(src)
		if err := z.Reset(in, e.Size, 0); err != nil {
			b.Fatal(err)
		}
		for {
			_, err := z.Read(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	decode() // warm the pools
	b.SetBytes(e.Size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testutil.CPUTime()
	for i := 0; i < b.N; i++ {
		decode()
	}
	ours := (testutil.CPUTime() - cpu0) / time.Duration(b.N)
	b.StopTimer()
	b.ReportMetric(ours.Seconds(), "cpu-s/op")
	if _, err := exec.LookPath("7zz"); err != nil {
		return
	}
	cmd := exec.Command("7zz", "t", "-mmt1", arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("7zz t: %v\n%s", err, out)
	}
	ref := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	b.ReportMetric(ref.Seconds(), "7zz-cpu-s/op")
	b.ReportMetric(ours.Seconds()/ref.Seconds(), "ratio")
}

// BenchmarkReaderZipEntry decodes the first entry (mixed-0.bin, 50 MiB)
// of the zip-ppmd workload archive, the mark of the full comparison, and
// reports its CPU time next to `7zz t -mmt1` on that entry alone, timed
// in the same run. It takes about a minute; it skips when the archive is
// not in the cache (the bench module builds it).
func BenchmarkReaderZipEntry(b *testing.B) {
	arch := filepath.Join(testutil.CacheDir(b), "mixed-zip-ppmd.zip")
	if _, err := os.Stat(arch); err != nil {
		b.Skipf("%s: %v", arch, err)
	}
	es := ppmdEntries(b, arch)
	e := es[0]
	z := new(ReaderZip)
	defer z.Close()
	src := new(bytes.Reader)
	in := bufio.NewReaderSize(src, 32<<10)
	buf := make([]byte, 32<<10)
	b.SetBytes(e.Size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testutil.CPUTime()
	for i := 0; i < b.N; i++ {
		src.Reset(e.Packed)
		in.Reset(src)
		if err := z.Reset(in, e.Size, 0); err != nil {
			b.Fatal(err)
		}
		for {
			_, err := z.Read(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	ours := (testutil.CPUTime() - cpu0) / time.Duration(b.N)
	b.StopTimer()
	b.ReportMetric(ours.Seconds(), "cpu-s/op")
	b.ReportMetric(float64(z.m.restarts), "restarts")
	if _, err := exec.LookPath("7zz"); err != nil {
		return
	}
	cmd := exec.Command("7zz", "t", "-mmt1", arch, e.Name)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("7zz t: %v\n%s", err, out)
	}
	ref := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	b.ReportMetric(ref.Seconds(), "7zz-cpu-s/op")
	b.ReportMetric(ours.Seconds()/ref.Seconds(), "ratio")
}
