package ppmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// checkBig compares every live block-sum entry with the states of its
// context in the arena and returns how many entries were live.
func checkBig(t *testing.T, m *Model) int {
	t.Helper()
	live := 0
	for slot := range m.big {
		e := &m.big[slot]
		if e.ctx == 0 || e.gen != m.gen {
			continue
		}
		live++
		n := m.numStats(e.ctx)
		if n < bigMin || n > 256 {
			t.Fatalf("entry for context %d with %d states", e.ctx, n)
		}
		stats := m.stats(e.ctx)
		var sum [256 / maskBlock]uint32
		var total uint32
		var has [4]uint64
		for i := uint32(0); i < n; i++ {
			s := stats + i*stateSize
			sym, f := m.mem[s], m.mem[s+1]
			sum[i/maskBlock] += uint32(f)
			total += uint32(f)
			has[sym>>6] |= 1 << (sym & 63)
			if e.sym[sym].pos() != i || e.sym[sym].freq() != uint32(f) {
				t.Fatalf("context %d symbol %d: entry has pos %d freq %d, arena %d %d", e.ctx, sym, e.sym[sym].pos(), e.sym[sym].freq(), i, f)
			}
		}
		if has != e.has {
			t.Fatalf("context %d: symbol set %x, arena %x", e.ctx, e.has, has)
		}
		for sym := range 256 {
			if has[sym>>6]&(1<<(sym&63)) == 0 && e.sym[sym].freq() != 0 {
				t.Fatalf("context %d: absent symbol %d has frequency %d", e.ctx, sym, e.sym[sym].freq())
			}
		}
		if sum != e.sum {
			t.Fatalf("context %d: block sums %v, arena %v", e.ctx, e.sum, sum)
		}
		if total != e.total {
			t.Fatalf("context %d: total %d, arena %d", e.ctx, e.total, total)
		}
	}
	return live
}

// TestBigSumsExact decodes the committed 7z streams one symbol at a time
// and checks after each one that the block sums, positions and
// frequencies kept for big contexts are those of the arena, so every
// update step that moves or changes a state of a big context keeps its
// entry right (or drops it). The mixed streams (random and text, small
// arenas that restart) must use entries, or the test proves nothing.
func TestBigSumsExact(t *testing.T) {
	for _, f := range loadFacts(t, "7z") {
		t.Run(f.Archive, func(t *testing.T) {
			if testing.Short() && raceOn && !bytes.Contains([]byte(f.Archive), []byte("mixed")) {
				t.Skip("race detector, -short: the mixed streams only")
			}
			live := checkBigStream(t, packed7z(t, f.Archive), f.Order, f.Mem, f.Size, f.SHA256, 20000, 7)
			if bytes.Contains([]byte(f.Archive), []byte("mixed")) && live == 0 {
				t.Fatal("no big context was cached: the test checks nothing")
			}
		})
	}
	// 384 KiB of the workload (three random and three text chunks) as
	// the benchmark packs it, where most order-1 contexts grow big.
	t.Run("mixed-0-384k", func(t *testing.T) {
		if testing.Short() {
			t.Skip("slow: per-symbol checks of many live entries")
		}
		if _, err := exec.LookPath("7zz"); err != nil {
			t.Skip("7zz not installed")
		}
		data, err := os.ReadFile(filepath.Join(testutil.MixedDir(t), testutil.MixedName(0)))
		if err != nil {
			t.Fatal(err)
		}
		data = data[:6*testutil.MixedChunk]
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in.bin"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("7zz", "a", "-t7z", "-m0=PPMd:o6:mem16m", "-mmt1", "-mhc=off", "a.7z", "in.bin")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("7zz: %v\n%s", err, out)
		}
		arch, err := os.ReadFile(filepath.Join(dir, "a.7z"))
		if err != nil {
			t.Fatal(err)
		}
		next := binary.LittleEndian.Uint64(arch[12:])
		sum := sha256.Sum256(data)
		live := checkBigStream(t, arch[32:32+next], 6, 16<<20, int64(len(data)), hex.EncodeToString(sum[:]), 5000, 101)
		if live < 10000 {
			t.Fatalf("%d live entries seen, want many", live)
		}
	})
}

// checkBigStream decodes a 7z PPMd stream one symbol at a time, checks
// the block sums after each of the first `every` symbols and then
// after every step-th, and the output's sha256. It returns the number
// of live entries it checked.
func checkBigStream(t *testing.T, packed []byte, order int, mem uint32, size int64, sum string, first, step int) int {
	z, err := NewReader7z(bytes.NewReader(packed), order, mem, size)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	h := sha256.New()
	var b [1]byte
	live, checks := 0, 0
	for n := 0; ; n++ {
		k, err := z.Read(b[:])
		h.Write(b[:k])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n < first || n%step == 0 {
			live += checkBig(t, z.m)
			checks++
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		t.Fatalf("sha256 %s, want %s", got, sum)
	}
	t.Logf("%d checks, %d live entries seen", checks, live)
	return live
}
