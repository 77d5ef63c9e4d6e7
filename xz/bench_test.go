package xz

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// benchXZ returns (making it once, in the benchmark cache) mixed-0.bin of
// the mixed-200 workload compressed by `xz -6 -T1`: 50 MiB of half random,
// half text data in a single-block stream with a CRC64 check. bench/ uses
// the same cache name for its comparison with ulikunitz/xz.
func benchXZ(b *testing.B) []byte {
	b.Helper()
	if _, err := exec.LookPath("xz"); err != nil {
		b.Skip("xz not installed (../shared/tools/install-reference-tools.sh installs it)")
	}
	out := filepath.Join(testutil.CacheDir(b), "xz-bench-mixed-0.xz")
	if _, err := os.Stat(out); err != nil {
		src := filepath.Join(testutil.MixedDir(b), testutil.MixedName(0))
		tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
		f, err := os.Create(tmp)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command("xz", "-6", "-T1", "-c", src)
		cmd.Stdout, cmd.Stderr = f, os.Stderr
		err = cmd.Run()
		f.Close()
		if err != nil {
			os.Remove(tmp)
			b.Fatal(err)
		}
		if err := os.Rename(tmp, out); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecode decodes a 26 MiB .xz of 50 MiB (see benchXZ) with a
// reused Reader: no allocation per stream once warm.
func BenchmarkDecode(b *testing.B) {
	data := benchXZ(b)
	want := testutil.Mixed(0)
	var br bytes.Reader
	z := new(Reader)
	defer z.Close()
	decode := func(w io.Writer) int64 {
		br.Reset(data)
		if err := z.Reset(&br); err != nil {
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
	b.SetBytes(int64(len(want)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		decode(io.Discard)
	}
}

// BenchmarkSmall decodes a 16 KiB file: the per-stream overhead.
func BenchmarkSmall(b *testing.B) {
	data := readTestFile(b, "check-sha256.xz")
	var br bytes.Reader
	z := new(Reader)
	defer z.Close()
	b.ReportAllocs()
	for b.Loop() {
		br.Reset(data)
		z.Reset(&br)
		if _, err := z.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
