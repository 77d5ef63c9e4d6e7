package lzma

import (
	"bytes"
	"fmt"
	"github.com/go-unarc/unarc/internal/testutil"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// genMixed returns n bytes that alternate random blocks, text records and
// long runs, deterministically from seed, so encoders emit every kind of
// symbol and LZMA2 every kind of chunk.
func genMixed(seed byte, n int) []byte {
	var s [32]byte
	s[0] = seed
	g := rand.NewChaCha8(s)
	r := rand.New(g)
	out := make([]byte, 0, n)
	rec := 0
	for len(out) < n {
		k := min(n-len(out), 1+r.IntN(40000))
		switch r.IntN(4) {
		case 0: // random
			start := len(out)
			out = out[:start+k]
			g.Read(out[start:])
		case 1, 2: // text
			for end := len(out) + k; len(out) < end; rec++ {
				v := r.Uint64() % 10000000
				out = fmt.Appendf(out, "rec=%09d user=u%05d amount=%7d.%02d\n", rec, (rec*7919)%100000, v/100, v%100)
			}
		case 3: // a run of a short pattern
			p := byte(r.IntN(256))
			for range k {
				out = append(out, p, p+1)
			}
		}
	}
	return out[:n]
}

// toolRun writes input to a temporary file, runs tool with args in which
// "{in}" and "{out}" name the input and output files, and returns the
// output file. It skips the test when tool is missing.
func toolRun(t testutil.TB, input []byte, tool string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s not installed", tool)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(in, input, 0o644); err != nil {
		t.Fatal(err)
	}
	full := make([]string, len(args))
	for i, a := range args {
		a = strings.ReplaceAll(a, "{in}", in)
		a = strings.ReplaceAll(a, "{out}", out)
		full[i] = a
	}
	cmd := exec.Command(tool, full...)
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v", tool, full, err)
	}
	for _, name := range []string{out, out + ".7z", out + ".zip"} {
		if b, err := os.ReadFile(name); err == nil {
			return b
		}
	}
	return stdout.Bytes()
}

// readAllWays decodes with mk through WriteTo, through one-byte Reads over
// one-byte input, and through io.ReadAll, and checks all agree with want.
func readAllWays(t *testing.T, name string, want []byte, mk func(r io.Reader) (io.ReadCloser, error), compressed []byte) {
	t.Helper()
	// WriteTo over a whole buffer.
	z, err := mk(bytes.NewReader(compressed))
	if err != nil {
		t.Fatalf("%s: open: %v", name, err)
	}
	var got bytes.Buffer
	if _, err := z.(io.WriterTo).WriteTo(&got); err != nil {
		t.Fatalf("%s: WriteTo: %v", name, err)
	}
	z.Close()
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("%s: WriteTo: output differs (got %d bytes, want %d) at %d", name, got.Len(), len(want), diffAt(got.Bytes(), want))
	}
	// Small reads over a trickling input.
	src := io.Reader(bytes.NewReader(compressed))
	if len(compressed) < 256<<10 {
		src = iotest.HalfReader(iotest.OneByteReader(src))
	}
	z, err = mk(src)
	if err != nil {
		t.Fatalf("%s: open: %v", name, err)
	}
	// Byte by byte for a while, then the rest in big reads.
	b, err := io.ReadAll(io.LimitReader(iotest.OneByteReader(z), 64<<10))
	if err == nil {
		var rest []byte
		rest, err = io.ReadAll(z)
		b = append(b, rest...)
	}
	if err != nil {
		t.Fatalf("%s: Read: %v", name, err)
	}
	z.Close()
	if !bytes.Equal(b, want) {
		t.Fatalf("%s: Read: output differs (got %d bytes, want %d) at %d", name, len(b), len(want), diffAt(b, want))
	}
}

func diffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
