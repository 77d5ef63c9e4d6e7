package lzma

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// The 7zz differential: every stream the encoders write here is checked
// by our decoder (content) and by `7zz t` (LZMA2 in a minimal .xz file,
// whose CRC32 7zz verifies, and the .lzma form with and without a known
// size). The files of a test go to 7zz in one run.

// sevenZipBatch collects files for one `7zz t` run.
type sevenZipBatch struct {
	dir   string
	names []string
	// misaligned names .lzma files whose header declares a dictionary
	// 7zz does not open (see lzmaHeaderDictOK).
	misaligned []string
}

func newSevenZipBatch(t *testing.T) *sevenZipBatch {
	t.Helper()
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	return &sevenZipBatch{dir: t.TempDir()}
}

func (s *sevenZipBatch) add(t *testing.T, name string, data []byte) {
	t.Helper()
	if strings.HasSuffix(name, ".lzma") && !lzmaHeaderDictOK(binary.LittleEndian.Uint32(data[1:5])) {
		s.misaligned = append(s.misaligned, name)
		return
	}
	if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s.names = append(s.names, name)
}

// run tests every file with 7zz and fails naming the files it rejects.
// It reports the .lzma files it left out for their header's dictionary.
func (s *sevenZipBatch) run(t *testing.T) {
	t.Helper()
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if len(s.misaligned) > 0 {
		t.Errorf("%d .lzma files declare a dictionary that is not 2^n or 3*2^n, which 7zz refuses to open: %v",
			len(s.misaligned), s.misaligned[:min(len(s.misaligned), 5)])
	}
}

// lzmaHeaderDictOK reports whether 7-Zip's .lzma handler opens a header
// declaring dictionary d (LzmaHandler.cpp, CheckDicSize: 2^n or 3*2^n,
// or all ones).
func lzmaHeaderDictOK(d uint32) bool {
	if d == 1 || d == 0xFFFFFFFF {
		return true
	}
	for i := range 31 {
		if d == 1<<i || d == 3<<i {
			return true
		}
	}
	return false
}

func (s *sevenZipBatch) check() error {
	if len(s.names) == 0 {
		return nil
	}
	sort.Strings(s.names)
	// -an -ai@list: the archives are the files the list names (a plain
	// second argument would be a name filter inside the first archive).
	list := filepath.Join(s.dir, "archives.txt")
	if err := os.WriteFile(list, []byte(strings.Join(s.names, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("7zz", "t", "-bd", "-an", "-ai@"+list)
	cmd.Dir = s.dir
	out, err := cmd.CombinedOutput()
	want := fmt.Sprintf("OK archives: %d\n", len(s.names))
	if len(s.names) == 1 {
		want = "Everything is Ok"
	}
	if err != nil || !bytes.Contains(out, []byte(want)) {
		var bad []string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "ERROR") || strings.Contains(line, "Error") {
				bad = append(bad, line)
			}
		}
		return fmt.Errorf("7zz t rejected some of %d files: %v\n%s", len(s.names), err, strings.Join(bad, "\n"))
	}
	return nil
}

// diffInputs are random, text, zeros, mixed, empty and one byte.
func diffInputs() []struct {
	name string
	data []byte
} {
	rnd := make([]byte, 150<<10)
	rand.NewChaCha8([32]byte{3}).Read(rnd)
	var text []byte
	for i := 0; len(text) < 200<<10; i++ {
		text = fmt.Appendf(text, "%05d the same words again and again, %d times\n", i, i%97)
	}
	return []struct {
		name string
		data []byte
	}{
		{"random", rnd}, {"text", text}, {"zeros", make([]byte, 300<<10)},
		{"mixed", genMixed(21, 400<<10)}, {"empty", nil}, {"one", []byte{0xA5}},
	}
}

// enc2 encodes data with Writer2 in writes of chunk bytes, checks the
// round trip through our decoder and returns the .xz file of it.
func enc2(t *testing.T, name string, data []byte, chunk int, opts ...WriterOption) []byte {
	t.Helper()
	packed, db := mtEncode(t, data, chunk, opts...)
	if got := mtDecode(t, packed, db); !bytes.Equal(got, data) {
		t.Fatalf("%s: our decoder: round trip differs at %d", name, diffAt(got, data))
	}
	dict, _ := DictSizeLZMA2(db)
	return xzWrap(packed, dict, data)
}

// encAlone encodes data in the .lzma form (sized: with KnownSize) and
// checks the round trip through our decoder.
func encAlone(t *testing.T, name string, data []byte, chunk int, sized bool, opts ...WriterOption) []byte {
	t.Helper()
	if sized {
		opts = append(opts[:len(opts):len(opts)], KnownSize(int64(len(data))))
	}
	var buf bytes.Buffer
	w, err := NewWriterLZMAHeader(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mtWriteAll(t, w, data, chunk)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReaderLZMAHeader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%s: our decoder: %d of %d bytes: %v", name, len(got), len(data), err)
	}
	return buf.Bytes()
}

// Test7zzEncode: every input at levels 0, 1, 5 and 9, one thread and the
// block mode on three, one write and one-byte writes, LZMA2 and .lzma
// (sized and not), all accepted by 7zz.
func Test7zzEncode(t *testing.T) {
	skipRace(t)
	s := newSevenZipBatch(t)
	levels := []int{0, 1, 5, 9}
	if testing.Short() {
		levels = []int{1, 5}
	}
	for _, in := range diffInputs() {
		data := in.data
		if testing.Short() && len(data) > 100<<10 {
			data = data[:100<<10]
		}
		for _, level := range levels {
			for _, mt := range []bool{false, true} {
				if mt && (level == 0 || level == 9) {
					continue // threading is checked at levels 1 and 5
				}
				opts := []WriterOption{Level(level)}
				tag := ""
				if mt {
					opts = append(opts, Threads(3), BlockSize(tBlock))
					tag = "-mt3"
				}
				name := fmt.Sprintf("%s-l%d%s", in.name, level, tag)
				s.add(t, name+".xz", enc2(t, name, data, 0, opts...))
			}
			name := fmt.Sprintf("%s-l%d", in.name, level)
			s.add(t, name+".lzma", encAlone(t, name, data, 0, false, Level(level)))
			if level == 5 {
				s.add(t, name+"-sized.lzma", encAlone(t, name, data, 0, true, Level(level)))
			}
		}
		// One-byte writes (short prefix: each is a call).
		small := data[:min(len(data), 5000)]
		name := in.name + "-bytewise"
		s.add(t, name+".xz", enc2(t, name, small, 1, Level(5)))
		s.add(t, name+"-mt.xz", enc2(t, name, small, 1, Level(1), Threads(2), BlockSize(tBlock)))
		s.add(t, name+".lzma", encAlone(t, name, small, 1, true, Level(5)))
	}
	s.run(t)
}

// Test7zzLiteralBits: every lc/lp/pb combination, LZMA2 (lc+lp <= 4)
// and .lzma (lc up to 8), on text and on the mixed generator, at level
// 1 (fast parser) and 5 (optimal parser).
func Test7zzLiteralBits(t *testing.T) {
	skipRace(t)
	s := newSevenZipBatch(t)
	inputs := diffInputs()
	text, mixed := inputs[1].data[:24<<10], inputs[3].data[:40<<10]
	levels := []int{1, 5}
	if testing.Short() {
		levels = []int{5}
	}
	for _, level := range levels {
		for lc := 0; lc <= maxLC; lc++ {
			for lp := 0; lp <= maxLP; lp++ {
				for pb := 0; pb <= maxPB; pb++ {
					name := fmt.Sprintf("l%d-lc%d-lp%d-pb%d", level, lc, lp, pb)
					opts := []WriterOption{Level(level), LiteralBits(lc, lp, pb)}
					data := text
					if (lc+lp+pb)%2 == 1 {
						data = mixed
					}
					if lc+lp <= 4 {
						s.add(t, name+".xz", enc2(t, name, data, 0, opts...))
					}
					s.add(t, name+".lzma", encAlone(t, name, data, 0, true, opts...))
				}
			}
		}
	}
	s.run(t)
}

// Test7zzMixed200: the first 8 MiB of each workload file at level 5,
// in the block mode with two goroutines (4 MiB blocks) and as one
// stream, through our decoder and 7zz.
func Test7zzMixed200(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 16 MiB")
	}
	s := newSevenZipBatch(t)
	for i := range testutil.MixedFiles {
		// 2 MiB of each kind in 1 MiB blocks: two blocks per threaded
		// stream, enough for 7zz to see the block framing; more data only
		// makes CI slower.
		data := testutil.Mixed(i)[:2<<20]
		name := fmt.Sprintf("mixed-%d", i)
		s.add(t, name+"-mt2.xz", enc2(t, name, data, 0, Level(5), Threads(2), BlockSize(1<<20)))
		s.add(t, name+".xz", enc2(t, name, data, 0, Level(5)))
	}
	s.run(t)
}

// Test7zzBatchFails: the batch check fails when one file of many is bad,
// so a pass means 7zz accepted every file.
func Test7zzBatchFails(t *testing.T) {
	s := newSevenZipBatch(t)
	data := genMixed(22, 50<<10)
	good := enc2(t, "good", data, 0, Level(1))
	s.add(t, "a.xz", good)
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 0x40
	s.add(t, "b.xz", bad)
	s.add(t, "c.xz", good)
	if err := s.check(); err == nil {
		t.Fatal("7zz t of a damaged file among good ones passed")
	}
}
