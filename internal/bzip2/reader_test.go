package bzip2

import (
	"bufio"
	"bytes"
	stdbzip2 "compress/bzip2"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// testFile is one committed stream and the SHA-256 of what it decodes to.
type testFile struct {
	name string
	data []byte
	sum  string
}

func testFiles(t testutil.TB) []testFile {
	t.Helper()
	f, err := os.Open("testdata/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []testFile
	s := bufio.NewScanner(f)
	for s.Scan() {
		sum, name, ok := strings.Cut(s.Text(), "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", s.Text())
		}
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, testFile{name, data, sum})
	}
	if len(out) < 9 {
		t.Fatalf("only %d test files", len(out))
	}
	return out
}

func readFile(t testutil.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decode decodes all of data with opts, through Read (small reads) or
// WriteTo.
func decode(data []byte, writeTo bool, opts ...Option) ([]byte, error) {
	z, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	var out bytes.Buffer
	if writeTo {
		_, err = z.WriteTo(&out)
		return out.Bytes(), err
	}
	buf := make([]byte, 4093)
	for {
		n, err := z.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
}

func stdDecode(data []byte) ([]byte, error) {
	return io.ReadAll(stdbzip2.NewReader(bytes.NewReader(data)))
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// sentinels are the errs sentinels; a decode error wraps exactly one.
var sentinels = []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
	errs.ErrPasswordRequired, errs.ErrPassword, errs.ErrUnsupported, errs.ErrInsecurePath, errs.ErrLimit}

func oneSentinel(t testutil.TB, err error) error {
	t.Helper()
	var got error
	for _, s := range sentinels {
		if errors.Is(err, s) {
			if got != nil {
				t.Fatalf("error %q wraps both %v and %v", err, got, s)
			}
			got = s
		}
	}
	if got == nil {
		t.Fatalf("error %q wraps no sentinel", err)
	}
	return got
}

// raceShort: a -race -short run, where the long loops shrink (the
// parallel tests keep their size).
func raceShortMode() bool { return testutil.RaceEnabled && testing.Short() }

func TestFiles(t *testing.T) {
	workers, ways := []int{1, 2, 4}, []bool{false, true}
	if raceShortMode() {
		workers, ways = []int{1, 3}, []bool{true}
	}
	for _, f := range testFiles(t) {
		for _, w := range workers {
			for _, wt := range ways {
				got, err := decode(f.data, wt, Workers(w))
				if err != nil {
					t.Fatalf("%s workers %d writeTo %v: %v", f.name, w, wt, err)
				}
				if sha(got) != f.sum {
					t.Fatalf("%s workers %d writeTo %v: wrong output (%d bytes)", f.name, w, wt, len(got))
				}
			}
		}
		// Under a MaxMemory below FastMemory: the one-way walk with RLE1
		// undone on the way.
		got, err := decode(f.data, true, MaxMemory(Memory(9)))
		if err != nil || sha(got) != f.sum {
			t.Fatalf("%s with the one-way walk: %v", f.name, err)
		}
		std, err := stdDecode(f.data)
		if err != nil || sha(std) != f.sum {
			t.Fatalf("%s: compress/bzip2 disagrees with SHA256SUMS (%v)", f.name, err)
		}
	}
}

func TestTestEncoder(t *testing.T) {
	if raceShortMode() {
		t.Skip("the naive BWT is slow under -race")
	}
	for _, raw := range [][]byte{[]byte("a"), []byte("banana bandana"), bytes.Repeat([]byte("xy"), 3000),
		append(bytes.Repeat([]byte{0}, 1000), bytes.Repeat([]byte{9}, 600)...), randBytes(9000, 1)} {
		for _, br := range []int{1, 7, 300, 4000} {
			enc := testEncode(raw, encOpts{blockRaw: br})
			std, err := stdDecode(enc)
			if err != nil || !bytes.Equal(std, raw) {
				t.Fatalf("compress/bzip2 rejects the test encoder's output (%d bytes, blocks of %d): %v", len(raw), br, err)
			}
			got, err := decode(enc, false)
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("%d bytes, blocks of %d: %v", len(raw), br, err)
			}
		}
	}
}

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRandomised(t *testing.T) {
	if raceShortMode() {
		t.Skip("the naive BWT is slow under -race")
	}
	big := randText(walkMin+5000, 4) // one block walked on the lanes
	for _, raw := range [][]byte{randBytes(5000, 3), bytes.Repeat([]byte("abcd"), 4000), []byte("short"), big} {
		blockRaw := 3000
		if len(raw) > walkMin {
			blockRaw = len(raw)
		}
		enc := testEncode(raw, encOpts{randomise: true, blockRaw: blockRaw})
		for _, w := range []int{0, 1, 3} {
			opts := []Option{Workers(w)}
			if w == 0 {
				opts = []Option{MaxMemory(Memory(9))} // the one-way walk
			}
			got, err := decode(enc, w > 1, opts...)
			if err != nil {
				t.Fatalf("workers %d: %v", w, err)
			}
			if !bytes.Equal(got, raw) {
				t.Fatalf("workers %d: randomised block decoded wrong", w)
			}
		}
		// libbzip2 (the bzip2 tool) still decodes randomised blocks: it
		// must read the test encoder's the same way.
		if bz, err := exec.LookPath("bzip2"); err == nil {
			cmd := exec.Command(bz, "-dc")
			cmd.Stdin = bytes.NewReader(enc)
			out, err := cmd.Output()
			if err != nil || !bytes.Equal(out, raw) {
				t.Fatalf("bzip2 -d disagrees on the randomised stream (%d bytes): %v", len(out), err)
			}
		}
	}
}

// TestTruncated cuts streams at every few bytes: every cut is
// ErrTruncated, never a panic, never another sentinel.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"small.bz2", "text-l1.bz2", "mixed-7zz.bz2", "empty.bz2"} {
		data := readFile(t, name)
		step := 1
		if len(data) > 2000 {
			step = 499
			if testing.Short() {
				step = 2999
			}
		}
		if raceShortMode() {
			step *= 4
		}
		for n := 0; n < len(data); n += step {
			for _, w := range []int{1, 2} {
				_, err := decode(data[:n], true, Workers(w))
				if err == nil {
					t.Fatalf("%s cut at %d (workers %d): no error", name, n, w)
				}
				if s := oneSentinel(t, err); s != errs.ErrTruncated {
					t.Fatalf("%s cut at %d (workers %d): %v, want ErrTruncated", name, n, w, err)
				}
			}
		}
	}
}

// TestBitFlip flips bits after the stream header: each gives an error
// wrapping one of ErrCorrupt, ErrChecksum and ErrTruncated, or (for the
// rare harmless flip) the original data; never other data, never a panic.
func TestBitFlip(t *testing.T) {
	if raceShortMode() {
		t.Skip("slow under -race; TestParallelErrorOrder covers the parallel error path")
	}
	for _, name := range []string{"small.bz2", "text-l1.bz2"} {
		data := readFile(t, name)
		want, _ := decode(data, true)
		step := 3
		if len(data) > 2000 {
			step = 1999
		}
		if testing.Short() {
			step *= 5
		}
		bad := slices.Clone(data)
		for bit := 32; bit < (len(data)-1)*8; bit += step {
			copy(bad, data)
			bad[bit/8] ^= 0x80 >> (bit % 8)
			for _, w := range []int{1, 2} {
				got, err := decode(bad, false, Workers(w))
				if err == nil {
					if !bytes.Equal(got, want) {
						t.Fatalf("%s bit %d (workers %d): wrong data without an error", name, bit, w)
					}
					continue
				}
				switch oneSentinel(t, err) {
				case errs.ErrCorrupt, errs.ErrChecksum, errs.ErrTruncated:
				default:
					t.Fatalf("%s bit %d: %v", name, bit, err)
				}
			}
		}
	}
}

func TestHostile(t *testing.T) {
	raw := randText(9000, 4)
	runs := func(s []int) []int { // 30 RUNBs before EOB: a run beyond any block size
		eob := s[len(s)-1]
		s = s[:len(s)-1]
		for range 30 {
			s = append(s, 1)
		}
		return append(s, eob)
	}
	long := func(s []int) []int { // symbols past EOB's place, then no EOB
		return append(s[:len(s)-1], 2, 2, 2)
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"origPtr", testEncode(raw, encOpts{origPtrAdd: 5000}), errs.ErrCorrupt},
		{"block CRC", testEncode(raw, encOpts{badCRC: true}), errs.ErrChecksum},
		{"stream CRC", testEncode(raw, encOpts{badStream: true}), errs.ErrChecksum},
		{"run overflow", testEncode(raw, encOpts{tamper: runs}), errs.ErrCorrupt},
		{"no EOB", testEncode(raw, encOpts{tamper: long}), errs.ErrCorrupt},
		{"7 tables", testEncode(raw, encOpts{nGroups: 7}), errs.ErrCorrupt},
		{"1 table", testEncode(raw, encOpts{nGroups: 1}), errs.ErrCorrupt},
		{"block too long", testEncode(randBytes(120000, 5), encOpts{level: 1, blockRaw: 120000}), errs.ErrCorrupt},
		{"trailing data", append(readFile(t, "small.bz2"), "junk"...), errs.ErrCorrupt},
		{"trailing zeros", append(readFile(t, "small.bz2"), 0, 0, 0, 0), errs.ErrCorrupt},
		{"not bzip2", []byte("PK\x03\x04 not a bzip2 stream"), errs.ErrFormat},
		{"level 0", []byte("BZh0\x17\x72\x45\x38\x50\x90\x00\x00\x00\x00"), errs.ErrCorrupt},
		{"empty input", nil, errs.ErrTruncated},
		{"bad magic", append([]byte("BZh9"), bytes.Repeat([]byte{0x55}, 20)...), errs.ErrCorrupt},
	}
	for _, c := range cases {
		for _, w := range []int{1, 4} {
			_, err := decode(c.data, w > 1, Workers(w))
			if err == nil {
				t.Fatalf("%s (workers %d): no error", c.name, w)
			}
			if s := oneSentinel(t, err); s != c.want {
				t.Fatalf("%s (workers %d): %v, want %v", c.name, w, err, c.want)
			}
		}
	}
}

func TestMaxMemory(t *testing.T) {
	l9 := readFile(t, "text-l9.bz2")
	l1 := readFile(t, "text-l1.bz2")
	if _, err := decode(l9, true, MaxMemory(1<<20)); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("level 9 under MaxMemory(1 MiB): %v, want ErrLimit", err)
	}
	if _, err := decode(l1, true, MaxMemory(1<<20)); err != nil {
		t.Fatalf("level 1 under MaxMemory(1 MiB): %v", err)
	}
	if _, err := NewReader(bytes.NewReader(l1), MaxMemory(-1)); err == nil {
		t.Fatal("MaxMemory(-1) accepted")
	}
}

// TestDifferential compresses random and text inputs with the bzip2 tool
// and checks this package against compress/bzip2.
func TestDifferential(t *testing.T) {
	bz, err := exec.LookPath("bzip2")
	if err != nil {
		t.Skip("bzip2 not installed")
	}
	r := rand.New(rand.NewPCG(11, 12))
	words := strings.Fields("the quick brown fox jumps over a lazy dog and then some 0000 1111 zzzz")
	for i := range 12 {
		n := r.IntN(1 << uint(8+i%10))
		var raw []byte
		switch i % 3 {
		case 0:
			raw = randBytes(n, uint64(i))
		case 1:
			for len(raw) < n {
				raw = append(raw, words[r.IntN(len(words))]...)
				raw = append(raw, ' ')
			}
		case 2:
			for len(raw) < n {
				raw = append(raw, bytes.Repeat([]byte{byte(r.IntN(3))}, r.IntN(700))...)
			}
		}
		level := []string{"-1", "-9"}[i%2]
		cmd := exec.Command(bz, level, "-c")
		cmd.Stdin = bytes.NewReader(raw)
		enc, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		std, err := stdDecode(enc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode(enc, i%2 == 0, Workers(1+i%3))
		if err != nil || !bytes.Equal(got, std) || !bytes.Equal(got, raw) {
			t.Fatalf("input %d (%d bytes, %s): %v", i, len(raw), level, err)
		}
	}
}

func TestResetAllocs(t *testing.T) {
	data := readFile(t, "small.bz2")
	z, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	src := bytes.NewReader(data)
	run := func() {
		src.Reset(data)
		if err := z.Reset(src); err != nil {
			t.Fatal(err)
		}
		if _, err := z.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if a := testing.AllocsPerRun(20, run); a != 0 {
		t.Fatalf("warm Reset+decode allocates %v times", a)
	}
}

func TestClosed(t *testing.T) {
	z, err := NewReader(bytes.NewReader(readFile(t, "small.bz2")))
	if err != nil {
		t.Fatal(err)
	}
	z.Close()
	if _, err := z.Read(make([]byte, 10)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
}

// randText is n bytes of random words: text that compresses, without
// the long repeats that make the test encoder's naive BWT slow.
func randText(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 9))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau")
	var b []byte
	for len(b) < n {
		b = append(b, words[r.IntN(len(words))]...)
		b = append(b, " ,.\n"[r.IntN(4)])
	}
	return b[:n]
}
