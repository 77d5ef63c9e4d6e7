package zip

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

func openCfg(data []byte, l arc.Limits) (*Archive, error) {
	return Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: l}))
}

// emptyFiles is an archive of n empty stored entries with names of
// nameLen bytes.
func emptyFiles(n, nameLen int) []byte {
	var b testutil.ZipBuilder
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%0*d", nameLen, i)
		b.Add(testutil.ZipFile{Name: name, Packed: []byte{}})
	}
	return b.Bytes()
}

// TestDirectoryCounts: a count the directory's bytes cannot hold is
// corrupt; MaxEntries and MaxHeaderMemory are checked before the entry
// list is allocated, and the directory memory as it is read.
func TestDirectoryCounts(t *testing.T) {
	data := emptyFiles(3, 4)
	lie := bytes.Clone(data)
	end := len(lie) - 22
	le.PutUint16(lie[end+8:], 1000)
	le.PutUint16(lie[end+10:], 1000)
	// A count the directory cannot hold is a wrong count (7zz: "Headers
	// Error", entries listed): the three entries, and a warning.
	if a, err := openCfg(lie, arc.Limits{}); err != nil || len(a.Entries()) != 3 || len(a.Warnings()) != 1 || !errors.Is(a.Warnings()[0], errs.ErrCorrupt) {
		t.Errorf("1000 entries in 3 headers: %v, want 3 entries and a warning", err)
	}

	many := emptyFiles(100, 4)
	if _, err := openCfg(many, arc.Limits{MaxEntries: 99}); !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "MaxEntries (99)") {
		t.Errorf("MaxEntries: %v", err)
	}
	if _, err := openCfg(many, arc.Limits{MaxEntries: 100}); err != nil {
		t.Errorf("MaxEntries 100: %v", err)
	}
	// Declared count times the entry cost: refused before allocating.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := openCfg(many, arc.Limits{MaxHeaderMemory: 50 * entryMem})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "MaxHeaderMemory") {
		t.Errorf("MaxHeaderMemory up front: %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<10 {
		t.Errorf("refusing the count allocated %d bytes", d)
	}
	// Few entries with long names: caught while reading.
	long := emptyFiles(10, 4000)
	if _, err := openCfg(long, arc.Limits{MaxHeaderMemory: 10*entryMem + 20000}); !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "MaxHeaderMemory") {
		t.Errorf("MaxHeaderMemory names: %v", err)
	}
	if _, err := openCfg(long, arc.Limits{MaxHeaderMemory: 10*entryMem + 50000}); err != nil {
		t.Errorf("MaxHeaderMemory enough: %v", err)
	}
}

// TestOverlap: entries sharing a local header, or whose data runs into
// another entry or the central directory, are ErrCorrupt; the check is
// also right when the directory is not in offset order, and fast.
func TestOverlap(t *testing.T) {
	for name, data := range map[string][]byte{
		"full":   testutil.ZipBombFull(1<<20, 10),
		"quoted": testutil.ZipBombQuoted(1<<20, 10),
	} {
		if _, err := openCfg(data, arc.Limits{}); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// B's data claims 100 bytes and runs over A, listed first but stored
	// second; then a directory in reverse order without overlaps opens.
	var b testutil.ZipBuilder
	fb := testutil.ZipFile{Name: "b", Packed: bytes.Repeat([]byte{'b'}, 100), Size: 100}
	fa := testutil.ZipFile{Name: "a", Packed: []byte("aaaa"), Size: 4}
	offB := b.Offset()
	b.Raw(testutil.LocalHeader(fb))
	b.Raw(fb.Packed[:10])
	offA := b.Offset()
	b.Raw(testutil.LocalHeader(fa))
	b.Raw(fa.Packed)
	b.Raw(make([]byte, 90))
	b.Central(fa, offA)
	b.Central(fb, offB)
	_, err := openCfg(b.Bytes(), arc.Limits{})
	if !errors.Is(err, errs.ErrCorrupt) || !strings.Contains(err.Error(), "overlaps") {
		t.Errorf("unsorted overlap: %v", err)
	}
	// Data running into the central directory.
	var c testutil.ZipBuilder
	fc := testutil.ZipFile{Name: "c", Packed: []byte("cccc"), Size: 4}
	c.Raw(testutil.LocalHeader(fc))
	c.Raw(fc.Packed)
	fc.Packed = make([]byte, 40)
	fc.Size = 40
	c.Central(fc, 0)
	if _, err := openCfg(c.Bytes(), arc.Limits{}); !errors.Is(err, errs.ErrCorrupt) || !strings.Contains(err.Error(), "central directory") {
		t.Errorf("into the directory: %v", err)
	}

	// 100,000 entries listed in reverse order: one sort, no quadratic
	// scan. Timed against the same entries in order, so machine load and
	// -race scale both.
	const n = 100000
	build := func(reverse bool) []byte {
		var r testutil.ZipBuilder
		offs := make([]int64, n)
		files := make([]testutil.ZipFile, n)
		for i := range files {
			files[i] = testutil.ZipFile{Name: fmt.Sprintf("%06d", i), Packed: []byte{}}
			offs[i] = r.Offset()
			r.Raw(testutil.LocalHeader(files[i]))
		}
		for k := range files {
			i := k
			if reverse {
				i = n - 1 - k
			}
			r.Central(files[i], offs[i])
		}
		return r.Bytes()
	}
	timeOpen := func(data []byte) time.Duration {
		start := testutil.CPUTime()
		a, err := openCfg(data, arc.Limits{})
		if err != nil || len(a.Entries()) != n {
			t.Fatalf("%d entries: %v", n, err)
		}
		return testutil.CPUSince(start)
	}
	inOrder, rev := build(false), build(true)
	timeOpen(inOrder) // warm the pools
	base := timeOpen(inOrder)
	if d := timeOpen(rev); d > 4*base+200*time.Millisecond {
		t.Errorf("opening %d reverse-ordered entries took %v, in order %v", n, d, base)
	}
}

// zstdFrame is a Zstandard frame whose header asks for a 2^windowLog
// window and holds content as one raw block.
func zstdFrame(windowLog int, content []byte) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, byte(windowLog-10) << 3}
	h := 1 | len(content)<<3 // last, raw
	f = append(f, byte(h), byte(h>>8), byte(h>>16))
	return append(f, content...)
}

func zstdZip(windowLog int, content []byte, declared uint64) []byte {
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "z", Method: methodZstd, Packed: zstdFrame(windowLog, content),
		CRC: crc32.ChecksumIEEE(content), Size: declared})
	return b.Bytes()
}

func readEntry0(data []byte, l arc.Limits) ([]byte, error) {
	a, err := openCfg(data, l)
	if err != nil {
		return nil, err
	}
	rc, err := a.Open(0)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// TestZstdWindow: the window a frame asks for is bounded by the declared
// size (a 10-byte entry cannot make us allocate 2 GiB), MaxDictionary
// and MaxMemory, not by MaxEntrySize.
func TestZstdWindow(t *testing.T) {
	content := []byte("0123456789")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readEntry0(zstdZip(31, content, 10), arc.Limits{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "window") {
		t.Errorf("2 GiB window for 10 bytes: %v, want ErrLimit", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 32<<20 {
		t.Errorf("allocated %d bytes", d)
	}
	// A 1 MiB window for 10 bytes is what streaming encoders write: fine.
	got, err := readEntry0(zstdZip(20, content, 10), arc.Limits{})
	if err != nil || !bytes.Equal(got, content) {
		t.Errorf("1 MiB window: %q, %v", got, err)
	}
	// A declared 1 GiB allows a large window; MaxDictionary and
	// MaxMemory still bound it.
	lieBig := zstdZip(28, content, 1<<30)
	for _, l := range []arc.Limits{{MaxDictionary: 1 << 20}, {MaxMemory: 8 << 20}} {
		_, err := readEntry0(lieBig, l)
		if !errors.Is(err, errs.ErrLimit) {
			t.Errorf("%+v: %v, want ErrLimit", l, err)
		}
	}
	if _, err := readEntry0(zstdZip(20, content, 10), arc.Limits{MaxMemory: 1 << 20}); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("MaxMemory below the zstd decoder's buffers: %v", err)
	}
}

// TestMethodMemory: a bzip2 entry needs its block memory under MaxMemory.
func TestMethodMemory(t *testing.T) {
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "b", Method: methodBZip2, Packed: []byte("BZh9"), Size: 1})
	if _, err := readEntry0(b.Bytes(), arc.Limits{MaxMemory: 1 << 20}); !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "MaxMemory") {
		t.Errorf("bzip2 under 1 MiB: %v", err)
	}
}

// TestLyingSizeAlone: used without the root, an entry declaring 10
// bytes that inflates to 8 MiB is ErrCorrupt and hands on at most 11
// bytes, through WriteTo and Read.
func TestLyingSizeAlone(t *testing.T) {
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "small", Method: methodDeflate, Packed: testutil.DeflateZeros(8 << 20), Size: 10})
	data := b.Bytes()
	for _, viaWriteTo := range []bool{true, false} {
		a, err := openCfg(data, arc.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		rc, err := a.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if viaWriteTo {
			_, err = rc.(io.WriterTo).WriteTo(&out)
		} else {
			_, err = io.Copy(&out, struct{ io.Reader }{rc})
		}
		rc.Close()
		if !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("writeTo=%v: %v, want ErrCorrupt", viaWriteTo, err)
		}
		if out.Len() > 11 {
			t.Errorf("writeTo=%v: %d bytes handed on", viaWriteTo, out.Len())
		}
	}
}
