package zip

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkZipWriter: Deflate at the default level over 5 MiB of the
// mixed workload (4 files of 1 MiB, 64 of 16 KiB), and, without -short,
// a 20 MiB tree of it written by us, `zip -6` and `7zz a -tzip -mx5`
// (its default threads), each reporting CPU seconds and bytes.
func BenchmarkZipWriter(b *testing.B) {
	mixed := testutil.Mixed(0)
	b.Run("mixed-5M", func(b *testing.B) {
		data := mixed[:8<<20]
		type ent struct {
			name string
			data []byte
		}
		var ents []ent
		for i := range 4 {
			ents = append(ents, ent{fmt.Sprintf("big-%d", i), data[i<<20 : (i+1)<<20]})
		}
		for i := range 64 {
			off := 4<<20 + i*(16<<10)
			ents = append(ents, ent{fmt.Sprintf("small/%02d", i), data[off : off+16<<10]})
		}
		b.SetBytes(5 << 20)
		b.ReportAllocs()
		var out countWriter
		for b.Loop() {
			out = countWriter{}
			zw := NewWriter(&out)
			for _, e := range ents {
				w, err := zw.Create(e.name)
				if err != nil {
					b.Fatal(err)
				}
				w.Write(e.data)
			}
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(out.n), "bytes")
	})
	// One 16 MiB entry: its 1 MiB segments on one goroutine or all.
	for _, threads := range []int{1, 0} {
		b.Run(fmt.Sprintf("one-entry-16M-t%d", threads), func(b *testing.B) {
			data := mixed[:16<<20]
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var out countWriter
			cpu := testutil.CPUTime()
			for b.Loop() {
				out = countWriter{}
				zw := NewWriter(&out, WithThreads(threads))
				w, _ := zw.Create("one")
				w.Write(data)
				if err := zw.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(testutil.CPUSince(cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(out.n), "bytes")
		})
	}
	if testing.Short() {
		return
	}
	// The tree: 16 files of 1 MiB and 256 of 16 KiB (20 MiB).
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	for i := range 16 {
		p := filepath.Join(src, fmt.Sprintf("big-%02d.bin", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, mixed[i<<20:(i+1)<<20], 0o644)
	}
	for i := range 256 {
		p := filepath.Join(src, "small", fmt.Sprintf("%03d.bin", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		off := 16<<20 + i*(16<<10)
		os.WriteFile(p, mixed[off:off+16<<10], 0o644)
	}
	for _, threads := range []int{1, 0} {
		b.Run(fmt.Sprintf("tree-20M-unarc-t%d", threads), func(b *testing.B) {
			b.SetBytes(20 << 20)
			out := filepath.Join(dir, "unarc.zip")
			cpu := testutil.CPUTime()
			for b.Loop() {
				f, err := os.Create(out)
				if err != nil {
					b.Fatal(err)
				}
				zw := NewWriter(f, WithThreads(threads))
				if err := zw.AddFS(os.DirFS(src)); err != nil {
					b.Fatal(err)
				}
				if err := zw.Close(); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
			b.ReportMetric(testutil.CPUSince(cpu).Seconds()/float64(b.N), "cpu-s/op")
			st, _ := os.Stat(out)
			b.ReportMetric(float64(st.Size()), "bytes")
		})
	}
	for _, tool := range []struct {
		name string
		args []string
	}{
		{"zip-6", []string{"zip", "-6", "-r", "-q", "OUT", "."}},
		{"7zz-mx5", []string{"7zz", "a", "-tzip", "-mx5", "-bd", "OUT", "."}},
	} {
		b.Run("tree-20M-"+tool.name, func(b *testing.B) {
			if _, err := exec.LookPath(tool.args[0]); err != nil {
				b.Skipf("%s not installed", tool.args[0])
			}
			b.SetBytes(20 << 20)
			out := filepath.Join(dir, tool.name+".zip")
			var cpu time.Duration
			for b.Loop() {
				os.Remove(out)
				args := append([]string{}, tool.args[1:]...)
				for i, a := range args {
					if a == "OUT" {
						args[i] = out
					}
				}
				cmd := exec.Command(tool.args[0], args...)
				cmd.Dir = src
				if o, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", tool.args[0], err, o)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			st, _ := os.Stat(out)
			b.ReportMetric(float64(st.Size()), "bytes")
		})
	}
}
