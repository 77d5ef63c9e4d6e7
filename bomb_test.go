package unarc_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// bombLimits is SafeLimits with the ratio floor lowered to 4 MiB, so the
// bombs here (tens of MiB) are caught early under the CLI's ratio.
func bombLimits() unarc.Limits {
	l := unarc.SafeLimits
	l.RatioFloor = 4 << 20
	return l
}

// lifted lifts every limit.
var lifted = unarc.Limits{
	MaxDictionary: unarc.Unlimited, MaxMemory: unarc.Unlimited, MaxHeaderMemory: unarc.Unlimited,
	MaxEntries: unarc.Unlimited, MaxEntrySize: unarc.Unlimited, MaxTotalSize: unarc.Unlimited,
	MaxRatio: unarc.Unlimited, RatioFloor: unarc.Unlimited,
}

// sizeWriter counts bytes and can fail past a bound.
type sizeWriter struct{ n int64 }

func (w *sizeWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// drain reads every entry of a into a counter; it returns the first
// error and the bytes produced.
func drain(t *testing.T, a *unarc.Archive) (int64, error) {
	t.Helper()
	var w sizeWriter
	for _, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.OpenEntry(e)
		if err != nil {
			return w.n, err
		}
		_, err = io.Copy(&w, rc)
		rc.Close()
		if err != nil {
			return w.n, err
		}
	}
	return w.n, nil
}

func openLimited(t *testing.T, data []byte, l unarc.Limits) (*unarc.Archive, error) {
	t.Helper()
	return unarc.Open(bytes.NewReader(data), int64(len(data)), unarc.WithLimits(l))
}

// TestZipOverlapBombs: Fifield's overlapping constructions are refused
// as corrupt when the archive is opened, whatever the limits.
func TestZipOverlapBombs(t *testing.T) {
	for name, data := range map[string][]byte{
		"full":   testutil.ZipBombFull(8<<20, 50),
		"quoted": testutil.ZipBombQuoted(8<<20, 50),
	} {
		for _, l := range []unarc.Limits{{}, bombLimits(), lifted} {
			_, err := openLimited(t, data, l)
			if !errors.Is(err, unarc.ErrCorrupt) || errors.Is(err, unarc.ErrLimit) {
				t.Errorf("%s (%d bytes): Open: %v, want ErrCorrupt", name, len(data), err)
			}
			if err != nil && !strings.Contains(err.Error(), "overlaps") && !strings.Contains(err.Error(), "share") {
				t.Errorf("%s: message does not say why: %v", name, err)
			}
		}
	}
}

// zip64Zeros is a Zip64 entry declaring declared bytes whose Deflate
// data really holds real zero bytes.
func zip64Zeros(declared, real int64) []byte {
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "zeros", Method: 8, Packed: testutil.DeflateZeros(real),
		CRC: testutil.ZerosCRC(declared), Size: uint64(declared), Zip64: true})
	return b.Bytes()
}

// TestZip64ZerosBomb: a Zip64 entry of zeros declaring 5 GiB. Its
// declared size is judged before anything is decoded: past MaxTotalSize,
// Verify and Extract refuse it at once. Within the limits it is held to
// what it declares, and its data ending early is ErrTruncated (a size
// that lies is caught by the data, not by a ratio); with every limit
// lifted it is decoded in bounded memory.
func TestZip64ZerosBomb(t *testing.T) {
	big := zip64Zeros(5<<30, 256<<20)
	l := bombLimits()
	l.MaxTotalSize = 4 << 30
	a, err := openLimited(t, big, l)
	if err != nil {
		t.Fatal(err)
	}
	start := testutil.CPUTime()
	res, err := a.Verify(t.Context())
	if !errors.Is(err, unarc.ErrLimit) || unarc.LimitName(err) != "MaxTotalSize" || len(res) != 0 {
		t.Errorf("Verify past MaxTotalSize: %v with %d results, want ErrLimit naming MaxTotalSize", err, len(res))
	}
	dest := t.TempDir()
	if err := a.Extract(t.Context(), dest); !errors.Is(err, unarc.ErrLimit) || unarc.LimitName(err) != "MaxTotalSize" {
		t.Errorf("Extract past MaxTotalSize: %v, want ErrLimit naming MaxTotalSize", err)
	}
	if d := testutil.CPUSince(start); d > time.Second {
		t.Errorf("refusing took %v: something was decoded", d)
	}
	if got := tree(t, dest); len(got) != 0 {
		t.Errorf("refused Extract wrote %v", got)
	}
	data := zip64Zeros(5<<30, 64<<20)
	for name, l := range map[string]unarc.Limits{"SafeLimits": unarc.SafeLimits, "lifted": lifted} {
		a, err = openLimited(t, data, l)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n, err := drain(t, a)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, unarc.ErrTruncated) || n != 64<<20 {
			t.Errorf("%s: %v after %d bytes, want ErrTruncated after %d", name, err, n, 64<<20)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 4<<20 {
			t.Errorf("%s: decoding 64 MiB allocated %d bytes", name, d)
		}
	}
	// The default limits do not cap total output or ratio: a true 64 MiB
	// of zeros declared as such is fine.
	a, err = openLimited(t, zip64Zeros(64<<20, 64<<20), unarc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(t, a); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestZipLyingSize: an entry declaring 10 bytes that inflates to 8 MiB
// is ErrCorrupt, and no byte past the declared size reaches the
// destination or a temporary file, with the limits lifted too.
func TestZipLyingSize(t *testing.T) {
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "small.txt", Method: 8, Packed: testutil.DeflateZeros(8 << 20), Size: 10})
	b.Add(testutil.ZipFile{Name: "next.txt", Method: 0, Packed: []byte("ok"), CRC: crc32.ChecksumIEEE([]byte("ok")), Size: 2})
	data := b.Bytes()
	for _, l := range []unarc.Limits{{}, lifted} {
		a, err := openLimited(t, data, l)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := a.OpenEntry(a.Entries()[0])
		if err != nil {
			t.Fatal(err)
		}
		var w sizeWriter
		_, err = io.Copy(&w, rc)
		rc.Close()
		if !errors.Is(err, unarc.ErrCorrupt) {
			t.Errorf("copy: %v, want ErrCorrupt", err)
		}
		if w.n > 10 {
			t.Errorf("%d bytes written for a 10-byte entry", w.n)
		}
		// Extract: watch the destination while it is written.
		dest := t.TempDir()
		var biggest int64
		opt := unarc.WithProgress(func(p unarc.Progress) {
			filepath.Walk(dest, func(_ string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() && fi.Size() > biggest {
					biggest = fi.Size()
				}
				return nil
			})
		})
		a, _ = unarc.Open(bytes.NewReader(data), int64(len(data)), unarc.WithLimits(l))
		err = a.Extract(context.Background(), dest, opt)
		if !errors.Is(err, unarc.ErrCorrupt) {
			t.Errorf("Extract: %v, want ErrCorrupt", err)
		}
		if biggest > 11 {
			t.Errorf("a file of %d bytes appeared while extracting", biggest)
		}
		if got, _ := os.ReadFile(filepath.Join(dest, "next.txt")); string(got) != "ok" {
			t.Errorf("next entry: %q", got)
		}
	}
}

// TestZipMaxEntries: the entry count is checked against MaxEntries
// before the directory is read.
func TestZipMaxEntries(t *testing.T) {
	var b testutil.ZipBuilder
	for i := 0; i < 100; i++ {
		b.Add(testutil.ZipFile{Name: "f" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Packed: []byte{}, Size: 0})
	}
	data := b.Bytes()
	if _, err := openLimited(t, data, unarc.Limits{MaxEntries: 99}); !errors.Is(err, unarc.ErrLimit) || !strings.Contains(err.Error(), "MaxEntries") {
		t.Errorf("99: %v, want ErrLimit naming MaxEntries", err)
	}
	if _, err := openLimited(t, data, unarc.Limits{MaxEntries: 100}); err != nil {
		t.Errorf("100: %v", err)
	}
}

// toolBomb reads a bomb testdata/bombs/make.sh made.
func toolBomb(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "bombs", name))
	if err != nil {
		t.Skipf("%v (run testdata/bombs/make.sh)", err)
	}
	return data
}

// TestToolBombs: 7z and RAR5 archives of zeros, a solid 7z folder
// (PackedSize -1) and RAR5 file references (packed size 0) declare their
// sizes: the CLI profile reads them (a file of zeros is honest, whatever
// its ratio), a MaxTotalSize below what they declare refuses them before
// anything is decoded (Verify) and stops them as they are read
// (OpenEntry), and with the limits lifted they decode in bounded memory.
func TestToolBombs(t *testing.T) {
	for _, tc := range []struct {
		file     string
		total    int64 // bytes the archive decodes to
		maxAlloc uint64
	}{
		// 7-Zip's -mx9 dictionary is 64 MiB, and the data fills it. A
		// window the packed data cannot explain starts small and doubles
		// as output arrives, so up to twice the final window is allocated
		// over the run (the smaller steps go back to the pool).
		{"zeros.7z", 64 << 20, 136 << 20},
		{"zeros.rar", 64 << 20, 48 << 20},
		// sevenzip allocates a second window while reading the folder's
		// entries one by one (noted for its owner); still bounded. What
		// the pool still holds from earlier tests decides how much of it
		// is new: under 256 MiB alone, 276-290 MiB after the package's
		// other tests since a decoder at its folder's end is closed
		// rather than parked (its window goes back to the pool).
		{"solid.7z", 128 << 20, 320 << 20},
		// The copy source's bytes are kept (grown by doubling) beside
		// the 32 MiB window.
		{"copies.rar", 128 << 20, 64 << 20},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := toolBomb(t, tc.file)
			a, err := openLimited(t, data, bombLimits())
			if err != nil {
				t.Fatal(err)
			}
			if n, err := drain(t, a); err != nil || n != tc.total {
				t.Errorf("CLI profile: %v after %d bytes, want %d", err, n, tc.total)
			}
			l := lifted
			l.MaxTotalSize = 20 << 20
			a, _ = openLimited(t, data, l)
			start := testutil.CPUTime()
			if res, err := a.Verify(t.Context()); !errors.Is(err, unarc.ErrLimit) || unarc.LimitName(err) != "MaxTotalSize" || len(res) != 0 {
				t.Errorf("Verify: %v with %d results, want ErrLimit naming MaxTotalSize before decoding", err, len(res))
			}
			if d := testutil.CPUSince(start); d > time.Second {
				t.Errorf("Verify took %v to refuse: it decoded", d)
			}
			a, _ = openLimited(t, data, l)
			n, err := drain(t, a)
			if !errors.Is(err, unarc.ErrLimit) || !strings.Contains(err.Error(), "MaxTotalSize") || n > 20<<20 {
				t.Errorf("total: %v after %d bytes, want ErrLimit naming MaxTotalSize", err, n)
			}
			a, _ = openLimited(t, data, lifted)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			n, err = drain(t, a)
			runtime.ReadMemStats(&after)
			if err != nil || n != tc.total {
				t.Errorf("lifted: %v after %d bytes, want %d", err, n, tc.total)
			}
			if d := after.TotalAlloc - before.TotalAlloc; d > tc.maxAlloc {
				t.Errorf("lifted: allocated %d bytes", d)
			}
		})
	}
}

// TestSafeLimitsRealArchives: every archive in testdata passes under the
// CLI profile (the limits stop bombs, not real data).
func TestSafeLimitsRealArchives(t *testing.T) {
	checked := 0
	for _, dir := range []string{"zip", "rar", "rar29", "rar5u", "7z"} {
		paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		for _, p := range paths {
			if strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".txt") {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			a, err := openLimited(t, data, unarc.SafeLimits)
			if errors.Is(err, unarc.ErrLimit) {
				t.Errorf("%s: Open: %v", p, err)
			}
			if err != nil {
				continue
			}
			if _, err := drain(t, a); errors.Is(err, unarc.ErrLimit) {
				t.Errorf("%s: %v", p, err)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d archives checked", checked)
	}
}

// TestReaderAccount: the forward-only Reader counts its input under its
// buffer and charges every entry to one account: a stream of zeros stops
// at the ratio, and MaxTotalSize holds across entries.
func TestReaderAccount(t *testing.T) {
	read := func(data []byte, l unarc.Limits) (int64, error) {
		r, err := unarc.NewReader(bytes.NewReader(data), unarc.WithLimits(l))
		if err != nil {
			return 0, err
		}
		defer r.Close()
		var w sizeWriter
		for {
			if _, err := r.Next(); err != nil {
				if err == io.EOF {
					return w.n, nil
				}
				return w.n, err
			}
			if _, err := io.Copy(&w, r); err != nil {
				return w.n, err
			}
		}
	}
	// Deflate tops out near 1032:1, so a ratio of 100 stands in for the
	// CLI's 1000 (testdata/bombs/dd-zeros.zip, BZip2, is the CLI's case).
	l := bombLimits()
	l.MaxRatio = 100
	data := ddZip("zeros", testutil.DeflateZeros(256<<20), testutil.ZerosCRC(256<<20), 256<<20)
	n, err := read(data, l)
	if !errors.Is(err, unarc.ErrLimit) || unarc.LimitName(err) != "MaxRatio" {
		t.Errorf("ratio: %v after %d bytes", err, n)
	}
	if max := int64(4<<20 + 100*(len(data)+64<<10)); n > max {
		t.Errorf("ratio: %d bytes before it stopped, want at most %d", n, max)
	}
	// The same zeros with their size in the local header are held to it,
	// not to the ratio.
	if n, err := read(zip64Zeros(256<<20, 256<<20), l); err != nil || n != 256<<20 {
		t.Errorf("declared: %v after %d bytes", err, n)
	}
	var b testutil.ZipBuilder
	for _, name := range []string{"a", "b", "c"} {
		b.Add(testutil.ZipFile{Name: name, Method: 8, Packed: testutil.DeflateZeros(4 << 20), CRC: testutil.ZerosCRC(4 << 20), Size: 4 << 20})
	}
	three := b.Bytes()
	if n, err := read(three, unarc.Limits{MaxTotalSize: 10 << 20}); !errors.Is(err, unarc.ErrLimit) || n > 10<<20 {
		t.Errorf("total: %v after %d bytes", err, n)
	}
	if n, err := read(three, unarc.Limits{MaxTotalSize: 12 << 20}); err != nil || n != 12<<20 {
		t.Errorf("total within: %v after %d bytes", err, n)
	}
	// Stored data past the floor: ratio 1, whichever API reads it.
	var s testutil.ZipBuilder
	raw := make([]byte, 8<<20)
	for i := range raw {
		raw[i] = byte(i * 7 / 3)
	}
	s.Add(testutil.ZipFile{Name: "raw", Packed: raw, CRC: crc32.ChecksumIEEE(raw), Size: uint64(len(raw))})
	stored := s.Bytes()
	if n, err := read(stored, bombLimits()); err != nil || n != int64(len(raw)) {
		t.Errorf("stored via Reader: %v after %d bytes", err, n)
	}
	a, err := openLimited(t, stored, bombLimits())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := drain(t, a); err != nil || n != int64(len(raw)) {
		t.Errorf("stored via Archive: %v after %d bytes", err, n)
	}
}

// ddZip is a ZIP of one Deflate entry whose local header leaves the CRC
// and sizes to a data descriptor (APPNOTE 4.4.4 bit 3), as a writer
// streaming to a pipe makes it: a forward reader does not know its size.
func ddZip(name string, packed []byte, crc uint32, size uint32) []byte {
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, 0x04034b50)
	b = le.AppendUint16(b, 20)          // version needed
	b = le.AppendUint16(b, 0x0008)      // flags: data descriptor
	b = le.AppendUint16(b, 8)           // Deflate
	b = le.AppendUint32(b, 0x0021_0000) // 1980-01-01 00:00
	b = le.AppendUint32(b, 0)           // CRC, sizes: in the descriptor
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint16(b, uint16(len(name)))
	b = le.AppendUint16(b, 0)
	b = append(b, name...)
	b = append(b, packed...)
	b = le.AppendUint32(b, 0x08074b50)
	b = le.AppendUint32(b, crc)
	b = le.AppendUint32(b, uint32(len(packed)))
	b = le.AppendUint32(b, size)
	cd := len(b)
	b = le.AppendUint32(b, 0x02014b50)
	b = le.AppendUint16(b, 20) // made by
	b = le.AppendUint16(b, 20)
	b = le.AppendUint16(b, 0x0008)
	b = le.AppendUint16(b, 8)
	b = le.AppendUint32(b, 0x0021_0000)
	b = le.AppendUint32(b, crc)
	b = le.AppendUint32(b, uint32(len(packed)))
	b = le.AppendUint32(b, size)
	b = le.AppendUint16(b, uint16(len(name)))
	b = append(b, make([]byte, 12)...) // extra, comment, disk, attributes
	b = le.AppendUint32(b, 0)          // local header offset
	b = append(b, name...)
	cdSize := len(b) - cd
	b = le.AppendUint32(b, 0x06054b50)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint32(b, uint32(cdSize))
	b = le.AppendUint32(b, uint32(cd))
	return le.AppendUint16(b, 0)
}

// TestStreamCopiesCharged: extracting RAR5 file copies from a stream
// writes them from the file already extracted; that output counts on the
// Reader's account like any other, so the copy bomb stops there too.
func TestStreamCopiesCharged(t *testing.T) {
	data := toolBomb(t, "copies.rar")
	l := lifted
	l.MaxTotalSize = 40 << 20 // the sources alone are 16 MiB each
	r, err := unarc.NewReader(bytes.NewReader(data), unarc.WithLimits(l))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dest := t.TempDir()
	err = r.Extract(t.Context(), dest)
	if !errors.Is(err, unarc.ErrLimit) || !strings.Contains(err.Error(), "MaxTotalSize") {
		t.Fatalf("stream Extract: %v; want ErrLimit naming MaxTotalSize", err)
	}
	var written int64
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if st, err := d.Info(); err == nil {
				written += st.Size()
			}
		}
		return nil
	})
	if written > 40<<20 {
		t.Errorf("%d bytes written past the 40 MiB total", written)
	}
}

// TestBudgetSpentStops: once an archive-wide limit trips, the Archive is
// spent: Extract stops at once (one error at most, not one per
// remaining entry) and a later OpenEntry fails at once instead of
// skip-decoding a solid prefix to reach it.
func TestBudgetSpentStops(t *testing.T) {
	data := toolBomb(t, "solid.7z")
	l := lifted
	l.MaxTotalSize = 20 << 20
	a, err := openLimited(t, data, l)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := drain(t, a); !errors.Is(err, unarc.ErrLimit) {
		t.Fatalf("drain: %v; want ErrLimit", err)
	}
	start := testutil.CPUTime()
	err = a.Extract(t.Context(), t.TempDir())
	var xe *unarc.ExtractError
	if !errors.Is(err, unarc.ErrLimit) || errors.As(err, &xe) && len(xe.Errors) != 1 {
		t.Fatalf("Extract: %v; want one ErrLimit", err)
	}
	if d := testutil.CPUSince(start); d > time.Second {
		t.Errorf("Extract of a spent archive took %v", d)
	}
	ents := a.Entries()
	last := ents[len(ents)-1]
	start = testutil.CPUTime()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = a.OpenEntry(last)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, unarc.ErrLimit) {
		t.Fatalf("OpenEntry after the budget is spent: %v; want ErrLimit", err)
	}
	if d := testutil.CPUSince(start); d > time.Second || after.TotalAlloc-before.TotalAlloc > 64<<10 {
		t.Errorf("OpenEntry took %v and %d bytes: it decoded", d, after.TotalAlloc-before.TotalAlloc)
	}
}
