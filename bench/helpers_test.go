package bench

import (
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// run measures one implementation: one untimed pass (warm pools, and a
// size check), then b.N timed passes. extract returns the bytes it
// produced, which must be the whole workload.
func run(b *testing.B, want int64, extract func(b *testing.B) int64) {
	if n := extract(b); n != want {
		b.Fatalf("extracted %d bytes, want %d", n, want)
	}
	b.SetBytes(want)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testutil.StartCPU()
	for range b.N {
		extract(b)
	}
	cpu.Report(b, want)
}

// loadFile reads the cached workload archive into memory, so every
// iteration measures decoding, not the disk.
func loadFile(b *testing.B, path string) []byte {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// drainer copies opened entries to io.Discard: drainer{b}.drain(f.Open())
// closes the entry and returns its size.
type drainer struct{ b *testing.B }

func (d drainer) drain(rc io.ReadCloser, err error) int64 {
	b := d.b
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	if err != nil {
		b.Fatal(err)
	}
	rc.Close()
	return n
}

// nextReader is the forward-only shape shared by unarc.Reader and
// rardecode.Reader.
type nextReader[E any] interface {
	Next() (E, error)
	io.Reader
}

// drainNext reads every entry of a forward-only reader.
func drainNext[E any](b *testing.B, r nextReader[E]) int64 {
	var total int64
	for {
		_, err := r.Next()
		if err == io.EOF {
			return total
		}
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			b.Fatal(err)
		}
		total += n
	}
}
