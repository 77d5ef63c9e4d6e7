package sevenzip

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// The 7-Zip-zstd family's coders (ZSTD, BROTLI, LZ4) and 7-Zip's Swap2
// and Swap4 filters. No tool here writes them (Debian's 7zz reads none
// of the three coders; py7zr is not installable offline), so the
// committed samples in testdata/7zx are made by our writer:
//
//	go test ./sevenzip -run TestGen7zx -gen-7zx $PWD/testdata/7zx
//
// and real archives of 7-Zip-zstd, NanaZip and others are read from
// the shared corpus when it is present (TestZstdFamilyCorpus).

var gen7zx = flag.String("gen-7zx", "", "write the 7-Zip-zstd family samples into this directory")

// sample7zx is the samples' content: text, random bytes and an odd
// length, so a Swap filter's partial last group is exercised.
func sample7zx() []tfile {
	r := rand.New(rand.NewPCG(33, 7))
	random := make([]byte, 3001)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var text strings.Builder
	for i := range 700 {
		text.WriteString("line ")
		text.WriteString(strings.Repeat("abcdefghij"[i%10:i%10+1], i%13+1))
		text.WriteString("\n")
	}
	return []tfile{
		{name: "text.txt", data: []byte(text.String())},
		{name: "random.bin", data: random},
		{name: "odd.txt", data: []byte("seven bytes? no: thirteen")},
	}
}

// samples7zx names each committed sample and the writer options that
// make it.
var samples7zx = []struct {
	name string
	pw   string
	opts []WriterOption
}{
	{"zstd.7z", "", []WriterOption{WithMethod(Zstd), WithFilter(FilterNone)}},
	{"zstd_l9_nonsolid.7z", "", []WriterOption{WithMethod(Zstd), WithLevel(9), WithSolid(0, 1), WithFilter(FilterNone)}},
	{"zstd_aes.7z", testPassword, []WriterOption{WithMethod(Zstd), WithFilter(FilterNone), WithPassword(testPassword), WithKDFCycles(8)}},
	{"brotli.7z", "", []WriterOption{WithMethod(Brotli), WithFilter(FilterNone)}},
	{"lz4.7z", "", []WriterOption{WithMethod(LZ4), WithFilter(FilterNone)}},
	{"swap2_copy.7z", "", []WriterOption{WithMethod(Copy), WithFilter(FilterSwap2)}},
	{"swap4_copy.7z", "", []WriterOption{WithMethod(Copy), WithFilter(FilterSwap4)}},
	{"swap4_zstd.7z", "", []WriterOption{WithMethod(Zstd), WithFilter(FilterSwap4)}},
	{"swap2_lzma2.7z", "", []WriterOption{WithFilter(FilterSwap2)}},
}

// fixedRandom makes the samples reproducible (7zAES's salt and IV).
func fixedRandom() WriterOption { return WithRandom(rand.NewChaCha8([32]byte{7})) }

// TestWriterZstdFamily: every method and filter round-trips, in every
// shape the samples have and with a file larger than a Brotli chunk.
func TestWriterZstdFamily(t *testing.T) {
	files := sample7zx()
	big := make([]byte, brotliChunk+brotliChunk/2+3)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = "abcdefgh"[r.IntN(8)]
	}
	for _, s := range samples7zx {
		t.Run(s.name, func(t *testing.T) {
			b := writeArchive(t, files, append(s.opts, fixedRandom())...)
			checkOurs(t, b, files, s.pw)
			if strings.HasPrefix(s.name, "swap") && !strings.Contains(s.name, "zstd") {
				// 7-Zip reads Swap2 and Swap4 (not the zstd coders):
				// it checks our filters against its own.
				need7zz(t)
				check7zz(t, writeTemp(t, b), files, s.pw)
			}
		})
	}
	if testing.Short() {
		return
	}
	bigFiles := []tfile{{name: "big", data: big}, {name: "small", data: []byte("x")}}
	for _, m := range []Method{Zstd, Brotli, LZ4} {
		t.Run("big-"+m.String(), func(t *testing.T) {
			checkOurs(t, writeArchive(t, bigFiles, WithMethod(m), WithFilter(FilterNone)), bigFiles, "")
		})
	}
}

// TestGen7zx writes the committed samples (with -gen-7zx).
func TestGen7zx(t *testing.T) {
	if *gen7zx == "" {
		t.Skip("set -gen-7zx DIR to write the samples")
	}
	files := sample7zx()
	for _, s := range samples7zx {
		b := writeArchive(t, files, append(s.opts, fixedRandom())...)
		if err := os.WriteFile(filepath.Join(*gen7zx, s.name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSamples7zx reads the committed samples: each decodes to the
// sample (so it also checks the writer has not drifted from what the
// reader of an older copy accepts) and names its coders as 7-Zip-zstd
// does.
func TestSamples7zx(t *testing.T) {
	files := sample7zx()
	for _, s := range samples7zx {
		t.Run(s.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "testdata", "7zx", s.name))
			if err != nil {
				t.Fatal(err)
			}
			checkOurs(t, b, files, s.pw)
		})
	}
}

// zstdFamilyCorpus lists the corpus archives of the family and the
// entries each holds with data (every one CRC-checked by the reader):
// real output of 7-Zip-zstd (bodgit/sevenzip's, libarchive's tests),
// a multi-volume set (sharpcompress's).
var zstdFamilyCorpus = []struct {
	archive string
	files   int
}{
	{"7z/bodgit-sevenzip/zstd.7z", 10},
	{"7z/bodgit-sevenzip/brotli.7z", 10},
	{"7z/bodgit-sevenzip/lz4.7z", 10},
	{"7z/libarchive/test_read_format_7zip_zstd.7z", 4},
	{"7z/libarchive/test_read_format_7zip_solid_zstd.7z", 4},
	{"7z/libarchive/test_read_format_7zip_zstd_arm.7z", 1},
	{"7z/sharpcompress/7Zip.ZSTD.Split.7z.001", 3},
}

// TestZstdFamilyCorpus reads the corpus archives of the family when the
// corpus is present: every file entry decodes, its CRC-32 (stored by
// the writer) checked, and the number of such entries is as listed.
func TestZstdFamilyCorpus(t *testing.T) {
	dir := testutil.CorpusDir(t)
	for _, c := range zstdFamilyCorpus {
		t.Run(c.archive, func(t *testing.T) {
			path := filepath.Join(dir, c.archive)
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			a, err := openFile(t, path, "")
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			n := 0
			for i, e := range a.Entries() {
				if e.IsDir() || e.Size == 0 && !e.HasCRC32 {
					continue
				}
				if !e.HasCRC32 {
					t.Errorf("%s: no CRC stored", e.Name)
				}
				rc, err := a.Open(i)
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				h := crc32.NewIEEE()
				_, err = io.Copy(h, rc)
				rc.Close()
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				if h.Sum32() != e.CRC32 {
					t.Errorf("%s: CRC-32 %08x, header %08x", e.Name, h.Sum32(), e.CRC32)
				}
				n++
			}
			if n != c.files {
				t.Errorf("%d files checked, want %d", n, c.files)
			}
		})
	}
}

// TestZstdFamilyDamage: damaged streams of each coder fail with the
// sentinel of what is wrong, never silently.
func TestZstdFamilyDamage(t *testing.T) {
	files := sample7zx()
	for _, m := range []Method{Zstd, Brotli, LZ4} {
		b := writeArchive(t, files, WithMethod(m), WithFilter(FilterNone), WithHeaderCompression(false))
		// The pack stream starts right after the 32-byte start header.
		for _, at := range []int{32, 32 + 5, 32 + 40, 32 + 200} {
			bad := bytes.Clone(b)
			bad[at] ^= 0x55
			err := readEveryEntry(bad)
			if err == nil {
				t.Errorf("%v: byte %d flipped, no error", m, at)
			} else if !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrChecksum) && !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrUnsupported) {
				t.Errorf("%v: byte %d flipped: %v, not a data error", m, at, err)
			}
		}
	}
}

// readEveryEntry opens b and reads every entry, returning the first error.
func readEveryEntry(b []byte) error {
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	defer a.Close()
	for i, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// TestZstdWindowBound: a ZSTD frame declaring a 2 GiB window (issue 30's
// hostile frame, here in a 7z folder) is refused as ErrLimit before
// anything is allocated when the window is above MaxDictionary, and is
// otherwise lowered to the coder's output size, so it decodes with
// little memory.
func TestZstdWindowBound(t *testing.T) {
	// More than a block (128 KiB), so the encoder writes the frame
	// header before it knows the content size: with a window descriptor.
	files := []tfile{{name: "f", data: sample7zx()[0].data}}
	for len(files[0].data) < 400<<10 {
		files[0].data = append(files[0].data, files[0].data...)
	}
	b := writeArchive(t, files, WithMethod(Zstd), WithFilter(FilterNone), WithSolid(0, 1))
	// The pack stream starts at byte 32: magic, then the frame header
	// descriptor (no single segment: the window descriptor follows).
	if string(b[32:36]) != "\x28\xb5\x2f\xfd" || b[36]&0x20 != 0 {
		t.Fatalf("unexpected frame header % x", b[32:40])
	}
	b[37] = 21 << 3 // 2 GiB
	a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Limits: arc.Limits{MaxDictionary: 1 << 30}}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Open(0); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("window above MaxDictionary: %v, want ErrLimit", err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	checkOurs(t, b, files, "")
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > 16<<20 {
		t.Errorf("decoding allocated %d bytes for a 2 GiB window over %d bytes", got, len(files[0].data))
	}
}

// TestBrotliLargeWindow: a large-window brotli stream (which the decoder
// cannot read) is ErrUnsupported, not a data error.
func TestBrotliLargeWindow(t *testing.T) {
	b := writeArchive(t, sample7zx(), WithMethod(Brotli), WithFilter(FilterNone))
	if string(b[32:36]) != "\x50\x2a\x4d\x18" {
		t.Fatalf("no frame header: % x", b[32:48])
	}
	b[48] = 0x11 // WBITS: large window
	if err := readEveryEntry(b); !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("large window: %v, want ErrUnsupported", err)
	}
}

// TestBrotliWindowBound: a BROTLI coder's window (its first stream's
// WBITS, 4 MiB from our writer) is counted, and refused as ErrLimit
// before decoding when it is above MaxDictionary.
func TestBrotliWindowBound(t *testing.T) {
	files := sample7zx()
	b := writeArchive(t, files, WithMethod(Brotli), WithFilter(FilterNone))
	a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{Limits: arc.Limits{MaxDictionary: 1 << 20}}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Open(0); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("4 MiB window, MaxDictionary 1 MiB: %v, want ErrLimit", err)
	}
	d, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := d.folderMemory(0); got != 4<<20+brotliTables+packReaderMem {
		t.Errorf("folder memory %d, want the 4 MiB window and the tables", got)
	}
}

// TestSeekZstdFamily: reads at offsets inside the entries are right,
// from checkpoints where the chain takes them (Swap over LZMA2 or Copy:
// the filter's held bytes are in them; a filter reading a whole small
// file at once takes none, so those cases are larger) and from the
// folder's start for the three coders, which take none.
func TestSeekZstdFamily(t *testing.T) {
	for _, s := range samples7zx {
		if s.pw != "" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "testdata", "7zx", s.name))
			if err != nil {
				t.Fatal(err)
			}
			checkSeek7zx(t, b, false)
		})
	}
	// LZMA2 takes its checkpoints between chunks (2 MiB of output).
	big := []tfile{{name: "big", data: bytes.Repeat(sample7zx()[0].data, 600)}, {name: "odd", data: []byte("abcde")}}
	for _, f := range []Filter{FilterSwap2, FilterSwap4} {
		for _, m := range []Method{LZMA2, Copy} {
			t.Run(fmt.Sprintf("big-%d-%v", f, m), func(t *testing.T) {
				checkSeek7zx(t, writeArchive(t, big, WithMethod(m), WithFilter(f), WithLevel(1)), true)
			})
		}
	}
}

// checkSeek7zx reads every entry of archive b at a few offsets after a
// first pass that takes checkpoints every 4 KiB; with wantCP some must
// have been taken and a read resumed at one.
func checkSeek7zx(t *testing.T, b []byte, wantCP bool) {
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 4 << 10, MaxMemory: 1 << 30})
	for i := range a.Entries() { // the first pass takes the checkpoints
		r, _, err := a.caps().OpenAt(i, 0)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r)
		r.Close()
	}
	resumed := false // an openAt started past the entry's start: at a checkpoint
	for i, e := range a.Entries() {
		want := readEntry(t, a, i)
		for _, off := range []int64{0, 1, 2, 3, 5, e.Size / 2, e.Size/2 + 1, e.Size - 3, e.Size - 1} {
			if off < 0 || off >= e.Size {
				continue
			}
			dropIdle(a)
			r, start, err := a.caps().OpenAt(i, off)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || start > off || !bytes.Equal(got, want[start:]) {
				t.Fatalf("%s at %d: from %d, %d bytes (%v)", e.Name, off, start, len(got), err)
			}
			resumed = resumed || start > 0
		}
	}
	st := a.caps().CheckpointStats()
	if wantCP && (st.Taken == 0 || !resumed) {
		t.Errorf("checkpoints: %+v", st)
	}
	t.Logf("checkpoints: %+v", st)
}
