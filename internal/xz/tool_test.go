package xz

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// codeLike returns n bytes of instruction-like words: branches and
// address loads of every architecture the BCJ filters convert, mixed with
// random words and some text, so each filter has work throughout.
func codeLike(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 13))
	out := make([]byte, 0, n+16)
	var w [4]byte
	le := func(v uint32) { binary.LittleEndian.PutUint32(w[:], v); out = append(out, w[:]...) }
	be := func(v uint32) { binary.BigEndian.PutUint32(w[:], v); out = append(out, w[:]...) }
	for len(out) < n {
		switch r.IntN(12) {
		case 0:
			out = append(out, 0xE8, byte(r.IntN(256)), byte(r.IntN(16)), 0, 0) // x86 call rel32
		case 1:
			le(0xEB<<24 | r.Uint32()&0xFFFFFF) // ARM BL
		case 2:
			le(uint32(0xF800|r.IntN(1<<11))<<16 | uint32(0xF000|r.IntN(1<<11))) // Thumb BL pair
		case 3:
			le(0x25<<26 | r.Uint32()&(1<<26-1)) // ARM64 BL
		case 4:
			le(0x90000000 | r.Uint32()&0xFFFFFF) // ARM64 ADRP
		case 5:
			be(0x12<<26 | r.Uint32()&0xFFFFFC | 1) // PowerPC bl
		case 6:
			be(0x40000000 | r.Uint32()&0x3FFFFF) // SPARC call
		case 7:
			le(0x6F | uint32(r.IntN(32))<<7 | r.Uint32()<<12) // RISC-V JAL
		case 8:
			le(0x17 | uint32(r.IntN(32))<<7 | r.Uint32()<<12) // RISC-V AUIPC
			le(0x13 | uint32(r.IntN(32))<<15 | r.Uint32()<<20)
		case 9:
			out = fmt.Appendf(out, "sym_%d:", r.IntN(1000))
		default:
			le(r.Uint32())
		}
	}
	return out[:n]
}

// compress runs a tool over data and returns its output (file name
// "{in}" and "{out}" in args are replaced).
func compress(t testutil.TB, data []byte, tool string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s not installed", tool)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.xz")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	full := make([]string, len(args))
	for i, a := range args {
		switch a {
		case "{in}":
			a = in
		case "{out}":
			a = out
		}
		full[i] = a
	}
	cmd := exec.Command(tool, full...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v", tool, full, err)
	}
	if b, err := os.ReadFile(out); err == nil {
		return b
	}
	return stdout.Bytes()
}

// TestToolFilters decodes what xz (and 7zz for RISC-V) make with each
// filter, with and without a start offset, over data larger than the
// filter and LZMA2 buffers, in several blocks.
func TestToolFilters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs xz for every filter")
	}
	data := codeLike(1, 300<<10+3)
	z := new(Reader)
	defer z.Close()
	check := func(t *testing.T, b []byte) {
		t.Helper()
		got, err := decodeAll(t, b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("got %d bytes, want %d, first difference at %d", len(got), len(data), firstDiff(got, data))
		}
	}
	filters := []string{"--x86", "--powerpc", "--ia64", "--arm", "--armthumb", "--arm64", "--sparc", "--delta=dist=7"}
	for _, f := range filters {
		t.Run(f, func(t *testing.T) {
			check(t, compress(t, data, "xz", "-c", "-T1", f, "--lzma2=preset=1,dict=128KiB", "{in}"))
			check(t, compress(t, data, "xz", "-c", "-T2", "--block-size=100000", "--check=sha256", f, "--lzma2=preset=1", "{in}"))
			if f[2] != 'd' {
				check(t, compress(t, data, "xz", "-c", f+"=start=65536", "--lzma2=preset=1", "{in}"))
			}
		})
	}
	t.Run("7zz", func(t *testing.T) {
		for _, f := range []string{"RISCV", "ARM64", "BCJ", "ARMT", "Delta:4"} {
			check(t, compress(t, data, "7zz", "a", "-txz", "-mf="+f, "-mx3", "-bso0", "-bsp0", "{out}", "{in}"))
		}
	})
}

// TestToolSizes decodes streams of many sizes and block sizes xz makes,
// around the buffer sizes of the chain.
func TestToolSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs xz many times")
	}
	for _, n := range []int{0, 1, 4095, 65536, 65537, 200000} {
		data := codeLike(uint64(n), n)
		for _, opts := range [][]string{{"-0"}, {"--x86", "--lzma2=preset=6"}, {"-1", "-T2", "--block-size=65536", "--check=crc32"}, {"-1", "--check=none"}} {
			args := append(append([]string{"-c"}, opts...), "{in}")
			b := compress(t, data, "xz", args...)
			got, err := decodeAll(t, b)
			if err != nil {
				t.Fatalf("n=%d %v: %v", n, opts, err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("n=%d %v: got %d bytes", n, opts, len(got))
			}
		}
	}
}
