package unarc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/testutil"
)

// indexTarFiles are testdata/tar archives: every tar dialect (PAX
// times, GNU sparse), every compressor around a tar, several members or
// frames, and the single compressed files.
var indexTarFiles = []string{"pax.tar", "gnu.tar", "oldgnu.tar", "ustar.tar", "v7.tar", "bsdtar.tar", "pax-times.tar",
	"sparse-gnu.tar", "sparse-pax01.tar", "sparse-pax10.tar",
	"small.tar.gz", "small.tar.bz2", "small.tar.xz", "small.tar.zst", "small.tar.lz", "small.tar.lzma",
	"small-multimember.tar.gz", "small-pigz.tgz", "small-frames.tar.zst", "small-members.tar.lz",
	"text.txt.gz", "text.txt.bz2", "text.txt.xz", "text.txt.zst", "text.txt.lz", "text.txt.lzma"}

// tarIndexOf reads testdata/tar/name and returns it, its marshalled
// index, that parsed again, its entries and their contents.
func tarIndexOf(t *testing.T, name string) ([]byte, []byte, *Index, []Entry, [][]byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tar", name))
	if err != nil {
		t.Fatal(err)
	}
	m, ents, data := indexOf(t, b, nil)
	idx, err := ParseIndex(m)
	if err != nil {
		t.Fatal(err)
	}
	return b, m, idx, ents, data
}

// TestIndexTarRoundTrip: a tarball reopened from its marshalled index
// lists the same entries (every field, and Sys the same *tar.Header)
// with the same contents, under the same format name, and the index of
// the reopened archive is byte-identical to the first.
func TestIndexTarRoundTrip(t *testing.T) {
	for _, name := range indexTarFiles {
		t.Run(name, func(t *testing.T) {
			b, m, idx, ents, data := tarIndexOf(t, name)
			a, err := Open(bytes.NewReader(b), int64(len(b)), WithIndex(idx))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.Format() != idx.Format() {
				t.Errorf("format %q, index %q", a.Format(), idx.Format())
			}
			sameListing(t, a, ents, data)
			again, err := a.Index()
			if err != nil {
				t.Fatal(err)
			}
			if m2, _ := again.MarshalBinary(); !bytes.Equal(m, m2) {
				t.Errorf("the reopened archive's index differs")
			}
			// Offset reads go through the header check too.
			readAtHalves(t, a, data)
		})
	}
}

// readAtHalves reads the second half of every entry of a with content
// through a SeekableEntry's ReadAt and compares it with data.
func readAtHalves(t *testing.T, a *Archive, data [][]byte) {
	t.Helper()
	for i, e := range a.Entries() {
		if !hasData(e) || len(data[i]) < 2 {
			continue
		}
		s, err := a.OpenSeekable(e)
		if err != nil {
			t.Fatalf("%s: OpenSeekable: %v", e.Name, err)
		}
		off := len(data[i]) / 2
		got := make([]byte, len(data[i])-off)
		if _, err := s.ReadAt(got, int64(off)); err != nil && err != io.EOF {
			t.Fatalf("%s: ReadAt %d: %v", e.Name, off, err)
		}
		s.Close()
		if !bytes.Equal(got, data[i][off:]) {
			t.Errorf("%s: ReadAt %d differs", e.Name, off)
		}
	}
}

// makeTar writes n regular files of size random bytes each (seeded), a
// directory first, with Go's archive/tar; modify may change a header
// before it is written.
func makeTar(t testutil.TB, n, size int, modify func(i int, h *tar.Header)) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "d/", Mode: 0o755, ModTime: mod}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("d/file-%04d.bin", i), Mode: 0o644, Size: int64(size),
			ModTime: mod, Uid: 1000, Gid: 100, Uname: "u", Gname: "g"}
		if modify != nil {
			modify(i, h)
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(testutil.RandomBytes(size, uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipMembers compresses b as gzip members, one per part between the
// cuts, stored (level 0: a member's length depends on its input's only).
func gzipMembers(t testutil.TB, b []byte, cuts ...int) []byte {
	t.Helper()
	var out bytes.Buffer
	prev := 0
	for _, c := range append(cuts, len(b)) {
		zw, err := gzip.NewWriterLevel(&out, gzip.NoCompression)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(b[prev:c])
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		prev = c
	}
	return out.Bytes()
}

// TestIndexTarGzListsWithoutDecoding is issue 18's restore case: a
// 1,000-entry tar.gz reopened from its index lists in well under 1 ms
// and reads nothing of the archive but the two 64 KiB ends the root's
// digest covers (counted), then reads its entries as a normal Open does.
func TestIndexTarGzListsWithoutDecoding(t *testing.T) {
	const n = 1000
	tb := makeTar(t, n, 300, nil)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tb)
	zw.Close()
	b := gz.Bytes()
	if len(b) < 4*edgeLen {
		t.Fatalf("a tar.gz of %d bytes: its ends would cover it", len(b))
	}
	m, ents, data := indexOf(t, b, nil)
	if len(ents) != n+1 {
		t.Fatalf("%d entries", len(ents))
	}
	// Not inside a GC cycle (or its sweep) of an earlier test's heap,
	// which slows allocating the listing several times.
	runtime.GC()
	best, runs := time.Hour, 20
	if testing.Short() || testutil.RaceEnabled {
		runs = 3 // no timing is asserted under -race
	}
	for i := 0; i < runs; i++ {
		cr := &cpCountingReaderAt{r: bytes.NewReader(b)}
		start := time.Now()
		idx, err := ParseIndex(m)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(cr, int64(len(b)), WithIndex(idx))
		if err != nil {
			t.Fatal(err)
		}
		cnt := 0
		for _, e := range a.Entries() {
			if e.Size > 0 {
				cnt++
			}
		}
		best = min(best, time.Since(start))
		if cnt != n {
			t.Fatal(cnt)
		}
		// The two ends (BLAKE3) and the first block (the compressor's
		// magic, detected again): nothing else.
		if got := cr.n.Load(); got > 2*edgeLen+512 {
			t.Fatalf("reopening read %d bytes of the archive", got)
		}
		if i == 0 {
			// Reading every entry in order (checkpoints on, the default)
			// checks each header in the one pass that reads them.
			cr.n.Store(0)
			sameListing(t, a, ents, data)
			if got := cr.n.Load(); got > int64(len(b))+64<<10 {
				t.Errorf("reading the entries in order read %d bytes of a %d-byte archive", got, len(b))
			}
		}
		a.Close()
	}
	t.Logf("parse index (%d bytes) + reopen + list %d entries of a %d-byte tar.gz: best %v", len(m), n+1, len(b), best)
	// The bound is judged on the best of 20 runs only: best of 3 (-short)
	// missed it by 0.15 ms once on a loaded 2-core machine.
	if runs == 20 && best > time.Millisecond {
		t.Errorf("listing from the index took %v, want < 1 ms", best)
	}
}

// TestIndexTarTampered: every byte of a tarball index's payload flipped
// (the index's checksum made again, as a forger would) either fails the
// open or a read with ErrStaleIndex, or leaves every entry with content
// listed and read as it was (the flip hit an entry without content,
// whose header a compressed tarball's index cannot check without a
// read). (tar's TestIndexOffsetTampered moves offsets.)
func TestIndexTarTampered(t *testing.T) {
	for _, name := range []string{"small.tar.gz", "small.tar.xz", "gnu.tar", "pax.tar"} {
		t.Run(name, func(t *testing.T) {
			b, _, idx, ents, data := tarIndexOf(t, name)
			// About 150 flips per archive (40 under -short or -race),
			// spread over the payload.
			step := max(1, len(idx.payload)/150)
			if testing.Short() || testutil.RaceEnabled {
				step = max(1, len(idx.payload)/40)
			}
			detected := 0
			for k := 0; k < len(idx.payload); k += step {
				x := *idx
				x.payload = bytes.Clone(idx.payload)
				x.payload[k] ^= 0x01
				mm, _ := x.MarshalBinary()
				y, err := ParseIndex(mm)
				if err != nil {
					t.Fatal(err)
				}
				if tamperedReads(t, b, y, ents, data) {
					detected++
				}
			}
			t.Logf("%d of %d flips detected", detected, (len(idx.payload)+step-1)/step)
		})
	}
}

// tamperedReads opens b from a tampered index and reads every entry: it
// reports whether the open or a read failed (with ErrStaleIndex, or a
// limit the flipped sizes ask for), and fails the test when neither did
// but an entry with content is listed or read otherwise than in ents
// and data.
func tamperedReads(t *testing.T, b []byte, idx *Index, ents []Entry, data [][]byte) bool {
	t.Helper()
	a, err := Open(bytes.NewReader(b), int64(len(b)), WithIndex(idx))
	if err != nil {
		if !errors.Is(err, ErrStaleIndex) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrLimit) {
			t.Fatalf("open: %v", err)
		}
		return true
	}
	defer a.Close()
	got := a.Entries()
	if len(got) != len(ents) {
		t.Fatalf("%d entries listed, %d in the archive", len(got), len(ents))
	}
	failed := false
	for i, e := range got {
		rc, err := a.OpenEntry(e)
		var c []byte
		if err == nil {
			c, err = io.ReadAll(rc)
			rc.Close()
		}
		if err != nil {
			if !errors.Is(err, ErrStaleIndex) && !errors.Is(err, ErrLimit) {
				t.Fatalf("entry %d: %v", i, err)
			}
			failed = true
			continue
		}
		if !bytes.Equal(c, data[i]) || !reflect.DeepEqual(*e, ents[i]) {
			t.Fatalf("entry %d read from a tampered index without an error: %+v\nwant %+v", i, *e, ents[i])
		}
	}
	return failed
}

// TestIndexTarCutShort: a tar cut inside an entry's data opens with a
// warning, and has no index (its reopened listing would lose it).
func TestIndexTarCutShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "tar", "gnu.tar"))
	if err != nil {
		t.Fatal(err)
	}
	b = b[:5000]
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.Warnings()) == 0 {
		t.Fatal("no warning")
	}
	if _, err := a.Index(); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Index of a tar cut short: %v", err)
	}
}

// TestIndexTarOtherArchive: the index of one tarball does not open
// another: another size, or the same size with other ends (four 30 KiB
// tars of the same files in other dialects).
func TestIndexTarOtherArchive(t *testing.T) {
	for _, pair := range [][2]string{{"small.tar.gz", "small-multimember.tar.gz"}, {"small.tar.gz", "seek.tar.gz"},
		{"gnu.tar", "oldgnu.tar"}, {"ustar.tar", "v7.tar"}, {"text.txt.xz", "text-crc32.txt.xz"}} {
		x, _, idx, _, _ := tarIndexOf(t, pair[0])
		y, _, _, _, _ := tarIndexOf(t, pair[1])
		if _, err := Open(bytes.NewReader(y), int64(len(y)), WithIndex(idx)); !errors.Is(err, ErrStaleIndex) {
			t.Errorf("index of %s over %s (%d and %d bytes): %v", pair[0], pair[1], len(x), len(y), err)
		}
	}
}

// TestIndexTarStaleMiddle: two tar.gz of the same size and the same
// first and last 64 KiB (stored gzip members; only the middle member,
// holding entry 150's header, differs: its time) pass the root's check,
// so the index of one opens the other and lists what it indexed. Reading
// entry 150 decodes its header and fails with ErrStaleIndex, through
// Open (decoding from the start) and through an offset read (from the
// nearest checkpoint before the header); the other entries read.
func TestIndexTarStaleMiddle(t *testing.T) {
	const n, size, victim = 300, 1024, 150
	x := makeTar(t, n, size, nil)
	y := makeTar(t, n, size, func(i int, h *tar.Header) {
		if i == victim {
			h.ModTime = h.ModTime.Add(time.Hour)
		}
	})
	if len(x) != len(y) {
		t.Fatal("tars of different sizes")
	}
	cut1, cut2 := 150<<10, 300<<10
	gx, gy := gzipMembers(t, x, cut1, cut2), gzipMembers(t, y, cut1, cut2)
	if len(gx) != len(gy) || !bytes.Equal(gx[:edgeLen], gy[:edgeLen]) || !bytes.Equal(gx[len(gx)-edgeLen:], gy[len(gy)-edgeLen:]) || bytes.Equal(gx, gy) {
		t.Fatal("the two tar.gz do not share their ends")
	}
	for _, cp := range []int64{0, 32 << 10} {
		t.Run(fmt.Sprintf("checkpoints=%d", cp), func(t *testing.T) {
			opts := []Option{WithCheckpoints(cp, 64<<20)}
			a, err := Open(bytes.NewReader(gx), int64(len(gx)), opts...)
			if err != nil {
				t.Fatal(err)
			}
			// With checkpoints, take them over the whole stream.
			idx := checkpointIndex(t, a, a.Entries()[n])
			b, err := Open(bytes.NewReader(gy), int64(len(gy)), append(opts, WithIndex(idx))...)
			if err != nil {
				t.Fatalf("same ends, stale middle: %v", err)
			}
			defer b.Close()
			e := b.Entries()[1+victim]
			if _, err := b.OpenEntry(e); !errors.Is(err, ErrStaleIndex) {
				t.Errorf("Open of the changed entry: %v", err)
			}
			s, err := b.OpenSeekable(e)
			if err == nil {
				_, err = s.ReadAt(make([]byte, 10), size/2)
				s.Close()
			}
			if !errors.Is(err, ErrStaleIndex) {
				t.Errorf("ReadAt of the changed entry: %v", err)
			}
			for _, i := range []int{1, victim, victim + 2, n} {
				if got := readEntry(t, b, b.Entries()[i]); !bytes.Equal(got, testutil.RandomBytes(size, uint64(i-1))) {
					t.Errorf("entry %d differs", i)
				}
			}
			if cp > 0 {
				if st := b.CheckpointStats(); st.Verified == 0 {
					t.Errorf("no restored checkpoint used: %+v", st)
				}
			}
		})
	}
}

// checkpointIndex reads e through a SeekableEntry (taking checkpoints
// when a takes them), closes a and returns its index with checkpoints,
// marshalled and parsed again.
func checkpointIndex(t *testing.T, a *Archive, e *Entry) *Index {
	t.Helper()
	s, err := a.OpenSeekable(e)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, s)
	s.Close()
	idx, err := a.Index(IndexWithCheckpoints())
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := idx.MarshalBinary()
	if idx, err = ParseIndex(m); err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestIndexTarCheckpoints: a compressed tarball's checkpoints kept in its
// index (IndexWithCheckpoints, through MarshalBinary and ParseIndex) are
// restored into the archive reopened from it: reading the end of its
// last entry starts from one (verified on first use) and reads less of
// the archive than without them, and gives the sequential bytes.
func TestIndexTarCheckpoints(t *testing.T) {
	for _, name := range []string{"seek.tar.gz", "seek.tar.bz2", "seek.tar.lz", "seek.tar.lzma", "seek.tar.xz", "seek.tar.zst"} {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != "seek.tar.gz" && name != "seek.tar.bz2" && name != "seek.tar.zst" {
				t.Skip("the LZMA family's windows are slow to restore under -short -race; the full run covers them")
			}
			b, err := os.ReadFile(filepath.Join("testdata", "tar", name))
			if err != nil {
				t.Fatal(err)
			}
			cps := WithCheckpoints(16<<10, 64<<20)
			a, err := Open(bytes.NewReader(b), int64(len(b)), cps)
			if err != nil {
				t.Fatal(err)
			}
			ents := a.Entries()
			last := ents[len(ents)-1]
			want := readEntry(t, a, last)
			idx := checkpointIndex(t, a, last)
			readEnd := func(idx *Index) (int64, CheckpointStats) {
				cr := &cpCountingReaderAt{r: bytes.NewReader(b)}
				a, err := Open(cr, int64(len(b)), WithIndex(idx), cps)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				cr.n.Store(0)
				checked := cpcache.InputRead.Load() // read to check restored checkpoints, not to decode
				s, err := a.OpenSeekable(a.Entries()[len(ents)-1])
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				off := int64(len(want)) - 100
				got := make([]byte, 100)
				if _, err := s.ReadAt(got, off); err != nil && err != io.EOF {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want[off:]) {
					t.Fatal("the end read at an offset differs")
				}
				return cr.n.Load() - (cpcache.InputRead.Load() - checked), a.CheckpointStats()
			}
			with, st := readEnd(idx)
			if st.Restored == 0 || st.Verified == 0 {
				t.Fatalf("checkpoints restored %d, used %d", st.Restored, st.Verified)
			}
			// Every restored checkpoint's state altered (its Check not):
			// each is dropped on first use, and the read still gives the
			// bytes, decoding from the start.
			cpl := sectionCheckpoints(t, idx)
			for k := range cpl {
				cpl[k].State = bytes.Clone(cpl[k].State)
				cpl[k].State[len(cpl[k].State)-1] ^= 0x55
			}
			bad := *idx
			bad.sections = []indexSection{{tagCheckpoints, encodeCheckpoints(cpl)}}
			if _, st := readEnd(&bad); st.Rejected == 0 || st.Verified != 0 {
				t.Errorf("altered checkpoints: %+v", st)
			}
			noCP := *idx
			noCP.sections = nil
			without, _ := readEnd(&noCP)
			t.Logf("%s: reading the last 100 bytes read %d bytes of the archive from restored checkpoints, %d without (%d in all)", name, with, without, len(b))
			if with >= without && name != "seek.tar.lzma" { // .lzma: one checkpoint, near the start
				t.Errorf("restored checkpoints read %d bytes, without them %d", with, without)
			}
		})
	}
}
