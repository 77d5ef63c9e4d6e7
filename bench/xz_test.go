package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	uxz "github.com/ulikunitz/xz"

	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/internal/xz"
)

// xzBench is testutil.MixedXZ's file (the xz package's BenchmarkDecode
// decodes the same one).
func xzBench(b *testing.B) []byte {
	b.Helper()
	return loadFile(b, testutil.MixedXZ(b))
}

// BenchmarkXZ decodes the same .xz (50 MiB of mixed-0.bin, xz -6) with
// unarc's xz package (reused Reader) and with ulikunitz/xz, side by side.
func BenchmarkXZ(b *testing.B) {
	data := xzBench(b)
	want := testutil.Mixed(0)
	size := int64(len(want))
	var br bytes.Reader
	z := new(xz.Reader)
	defer z.Close()
	ours := testutil.ReusedWriterTo(b, data, want, func(r io.Reader) (io.WriterTo, error) { return z, z.Reset(r) })
	b.Run("unarc", func(b *testing.B) {
		run(b, size, func(b *testing.B) int64 { return ours(io.Discard) })
	})
	b.Run("ulikunitz", func(b *testing.B) {
		run(b, size, func(b *testing.B) int64 {
			br.Reset(data)
			r, err := uxz.NewReader(&br)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, r)
			if err != nil {
				b.Fatal(err)
			}
			return n
		})
	})
}

// TestXZDifferential decodes streams xz makes (every check, several
// filters that both packages know, block sizes, concatenation) with both
// unarc's xz and ulikunitz/xz and compares the outputs; both must also
// reject the same damaged streams.
func TestXZDifferential(t *testing.T) {
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz not installed")
	}
	r := rand.New(rand.NewPCG(7, 9))
	sizes := []int{0, 1, 100, 70000, 300000}
	if testing.Short() {
		sizes = sizes[:4]
	}
	opts := [][]string{
		{"-0", "--check=none"}, {"-6", "--check=crc32"}, {"-3", "--check=crc64"},
		{"-1", "--check=sha256"}, {"-1", "-T2", "--block-size=30000"},
	}
	for _, n := range sizes {
		data := make([]byte, n)
		for i := range data {
			if i%3 == 0 {
				data[i] = byte(r.IntN(256))
			} else {
				data[i] = "abcdefgh \n"[r.IntN(10)]
			}
		}
		for _, o := range opts {
			cmd := exec.Command("xz", append(append([]string{"-c"}, o...), "-")...)
			cmd.Stdin = bytes.NewReader(data)
			packed, err := cmd.Output()
			if err != nil {
				t.Fatalf("xz %v: %v", o, err)
			}
			name := fmt.Sprintf("n%d%v", n, o)
			both := func(p []byte) (a, b []byte, ea, eb error) {
				zr, err := xz.NewReader(bytes.NewReader(p))
				if err == nil {
					a, ea = io.ReadAll(zr)
					zr.Close()
				} else {
					ea = err
				}
				ur, err := uxz.NewReader(bytes.NewReader(p))
				if err == nil {
					b, eb = io.ReadAll(ur)
				} else {
					eb = err
				}
				return
			}
			a, b, ea, eb := both(packed)
			if ea != nil || eb != nil || !bytes.Equal(a, data) || !bytes.Equal(b, data) {
				t.Fatalf("%s: unarc %d bytes %v, ulikunitz %d bytes %v, want %d", name, len(a), ea, len(b), eb, n)
			}
			// Damage: each of a few positions; whenever ulikunitz
			// detects it, so must we (we check more, e.g. the index
			// against the blocks, so not the other way round).
			for k := 0; k < 8 && len(packed) > 0; k++ {
				d := bytes.Clone(packed)
				d[r.IntN(len(d))] ^= byte(1 + r.IntN(255))
				a, b, ea, eb := both(d)
				if eb != nil && ea == nil {
					t.Fatalf("%s damaged: ulikunitz says %v, unarc decoded %d bytes", name, eb, len(a))
				}
				if ea == nil && eb == nil && !bytes.Equal(a, b) {
					t.Fatalf("%s damaged: both accept, outputs differ", name)
				}
			}
		}
	}
}

// TestXZDifferentialFiles decodes the committed testdata/xz files with
// both packages; where ulikunitz reads a file (it has no BCJ or Delta
// filters), the outputs must be equal.
func TestXZDifferentialFiles(t *testing.T) {
	files := testutil.Glob(t, filepath.Join("..", "testdata", "xz", "*.xz"))
	compared := 0
	for _, name := range files {
		p, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := xz.NewReader(bytes.NewReader(p))
		if err != nil {
			t.Fatal(err)
		}
		a, err := io.ReadAll(zr)
		zr.Close()
		if err != nil {
			t.Fatalf("%s: unarc: %v", name, err)
		}
		ur, err := uxz.NewReader(bytes.NewReader(p))
		if err != nil {
			continue
		}
		b, err := io.ReadAll(ur)
		if err != nil {
			continue
		}
		compared++
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: unarc %d bytes, ulikunitz %d", name, len(a), len(b))
		}
	}
	if compared < 8 {
		t.Fatalf("only %d files compared", compared)
	}
	t.Logf("%d of %d files compared", compared, len(files))
}
