package sevenzip

import (
	"os"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

type benchArchive struct {
	name     string
	password string
	args     []string
}

var benchArchives = []benchArchive{
	{"7z-lzma2", "", []string{"a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", "{out}"}},
	{"7z-lzma", "", []string{"a", "-t7z", "-m0=lzma", "-mx5", "-mmt1", "-md8m", "{out}"}},
	{"7z-ppmd", "", []string{"a", "-t7z", "-m0=ppmd", "-mx5", "-mmt1", "{out}"}},
	{"7z-aes", "SECRET", []string{"a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", "-pSECRET", "-mhe=on", "{out}"}},
}

func openBench(b *testing.B, path string) (*os.File, int64) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	return f, st.Size()
}

// BenchmarkArchive opens each workload archive and drains every entry to
// io.Discard with CRC verification, once per op.
func BenchmarkArchive(b *testing.B) {
	for _, ba := range benchArchives {
		b.Run(ba.name, func(b *testing.B) {
			path := testutil.MixedArchive(b, ba.name+".7z", "7zz", ba.args...)
			f, size := openBench(b, path)
			cfg := &arc.Config{}
			if ba.password != "" {
				pw := ba.password
				cfg.Password = func(*arc.Entry) (string, error) { return pw, nil }
			}
			extract := func() {
				a, err := Open(f, size, conf.From(cfg))
				if err != nil {
					b.Fatal(err)
				}
				testutil.DrainEntries(b, a.Entries(), a.Open)
				a.Close()
			}
			extract() // warm-up outside the timer: windows and buffers
			b.SetBytes(testutil.MixedFiles * testutil.MixedFileSize)
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				extract()
			}
			reportCPU(b, cpu)
		})
	}
}
