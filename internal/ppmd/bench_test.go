package ppmd

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// BenchmarkReader7z decodes the committed test streams (already in memory).
func BenchmarkReader7z(b *testing.B) {
	for _, f := range loadFacts(b, "7z") {
		packed := packed7z(b, f.Archive)
		b.Run(f.Archive, func(b *testing.B) {
			benchDecode(b, packed, f.Order, f.Mem, f.Size)
		})
	}
}

func benchDecode(b *testing.B, packed []byte, order int, mem uint32, size int64) {
	buf := make([]byte, 1<<16)
	br := bytes.NewReader(packed)
	z, err := NewReader7z(br, order, mem, size)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		br.Reset(packed)
		if err := z.Reset(br, order, mem, size); err != nil {
			b.Fatal(err)
		}
		n := int64(0)
		for {
			k, err := z.Read(buf)
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if n != size {
			b.Fatalf("decoded %d of %d", n, size)
		}
	}
}

// BenchmarkPPMd7zText decodes 4 MiB of text (the first 64 odd, text
// chunks of mixed-0.bin) packed by 7zz -m0=PPMd -mx5 (order 6, 16 MiB).
// Reference: hyperfine '7zz t <CacheDir>/7z-ppmd-text4m.7z'.
func BenchmarkPPMd7zText(b *testing.B) {
	if _, err := exec.LookPath("7zz"); err != nil {
		b.Skip("7zz not installed")
	}
	arch := filepath.Join(testutil.CacheDir(b), "7z-ppmd-text4m.7z")
	const size = 64 * testutil.MixedChunk
	if _, err := os.Stat(arch); err != nil {
		mixed, err := os.ReadFile(filepath.Join(testutil.MixedDir(b), testutil.MixedName(0)))
		if err != nil {
			b.Fatal(err)
		}
		text := make([]byte, 0, size)
		for k := 1; len(text) < size; k += 2 {
			text = append(text, mixed[k*testutil.MixedChunk:(k+1)*testutil.MixedChunk]...)
		}
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "text4m.txt"), text, 0o644); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command("7zz", "a", "-t7z", "-m0=PPMd", "-mx5", "-mmt1", "-mhc=off", arch+".tmp.7z", "text4m.txt")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("7zz: %v\n%s", err, out)
		}
		if err := os.Rename(arch+".tmp.7z", arch); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(arch)
	if err != nil {
		b.Fatal(err)
	}
	next := int64(binary.LittleEndian.Uint64(data[12:]))
	benchDecode(b, data[32:32+next], 6, 1<<24, size)
}

// BenchmarkPPMd7z decodes the mixed-200 workload file 0 (50 MiB) packed by
// 7zz with PPMd -mx5 (order 6, 16 MiB); `7zz t` on the same archive is the
// reference (see the package report).
func BenchmarkPPMd7z(b *testing.B) {
	arch := testutil.MixedArchive(b, "7z-ppmd-0.7z", "sh", "-c",
		`7zz a -t7z -m0=PPMd -mx5 -mmt1 -mhc=off "$0" mixed-0.bin >/dev/null`, "{out}")
	data, err := os.ReadFile(arch)
	if err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command("7zz", "l", "-slt", arch).Output()
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Contains(out, []byte("Method = PPMD:o6:mem24")) {
		b.Fatalf("unexpected method:\n%s", out)
	}
	next := int64(binary.LittleEndian.Uint64(data[12:]))
	benchDecode(b, data[32:32+next], 6, 1<<24, testutil.MixedFileSize)
}

// BenchmarkRAR decodes the committed RAR 3.x PPMd archives through the
// test's PPMd-only v29 loop (its output buffer is the one allocation).
func BenchmarkRAR(b *testing.B) {
	for _, f := range loadFacts(b, "rar") {
		data, err := os.ReadFile(filepath.Join(testdataDir(), f.Archive))
		if err != nil {
			b.Fatal(err)
		}
		rf := parseRAR4(b, data)
		var d RAR // outlives the sub-benchmark's runs, as a pooled decoder would
		b.Run(f.Archive, func(b *testing.B) {
			br := bytes.NewReader(rf.packed)
			b.SetBytes(rf.size)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				br.Reset(rf.packed)
				d.Reset()
				if _, err := unpackPPM29(&d, br, rf.size); err != nil {
					b.Fatal(err)
				}
			}
		})
		d.Close()
	}
}
