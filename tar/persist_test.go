package tar

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// reopen opens data from index payload p, with checkpoints every cp
// bytes of the stream (0: none).
func reopen(p, data []byte, cp int64) (*Archive, error) {
	x, err := openIndex(bytes.NewReader(data), int64(len(data)), p, nil)
	if err != nil {
		return nil, err
	}
	b := x.(*Archive)
	b.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: cp, MaxMemory: 64 << 20})
	return b, nil
}

// movedIndex is a's index with entry i's offset moved to off.
func movedIndex(t *testing.T, a *Archive, i int, off int64) []byte {
	t.Helper()
	orig := a.offs[i]
	a.offs[i] = off
	p, err := a.caps().ExportIndex(false)
	a.offs[i] = orig
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIndexOffsetTampered: an index whose data offset of an entry was
// moved (onto the next entry's data, a block on, a block back onto its
// own header) is refused on reopening or fails every read of the entry
// with ErrStaleIndex: from its data offset (a plain tar), from the start
// (Open of a compressed tarball), from a checkpoint (OpenAt). No read
// returns other bytes as the entry's.
func TestIndexOffsetTampered(t *testing.T) {
	for _, c := range []struct {
		name string
		cp   int64
	}{{"gnu.tar", 0}, {"pax.tar", 0}, {"small.tar.gz", 0}, {"small.tar.xz", 0}, {"small.tar.zst", 0},
		{"seek.tar.gz", 16 << 10}, {"seek.tar.bz2", 16 << 10}} {
		t.Run(c.name, func(t *testing.T) {
			data := readTestdata(t, c.name)
			a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			checked := 0
			for i, e := range a.ents {
				if e.Size <= 0 || a.offs[i] < 0 {
					continue
				}
				next := int64(-1)
				for j := i + 1; j < len(a.ents); j++ {
					if a.ents[j].Size > 0 && a.offs[j] > 0 {
						next = a.offs[j]
						break
					}
				}
				orig := a.offs[i]
				for _, off := range []int64{next, orig + blockSize, orig - blockSize} {
					if off < 0 || off == orig {
						continue
					}
					p := movedIndex(t, a, i, off)
					b, err := reopen(p, data, c.cp)
					if err != nil {
						if !errors.Is(err, arc.ErrStaleIndex) {
							t.Fatalf("entry %d at %d: reopen: %v", i, off, err)
						}
						checked++
						continue
					}
					if _, err := b.Open(i); !errors.Is(err, arc.ErrStaleIndex) {
						t.Errorf("entry %d moved from %d to %d: Open: %v", i, orig, off, err)
					}
					b.Close()
					if b, err = reopen(p, data, c.cp); err != nil {
						t.Fatal(err)
					}
					if _, _, err := readFrom(b, i, e.Size/2, 100); !errors.Is(err, arc.ErrStaleIndex) {
						t.Errorf("entry %d moved from %d to %d: OpenAt: %v", i, orig, off, err)
					}
					b.Close()
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("no offset moved")
			}
		})
	}
}

// TestIndexVerifiedOnce: an entry's header is checked on its first read
// only, and a plain tar's reopening reads nothing but its header ranges.
func TestIndexVerifiedOnce(t *testing.T) {
	data := readTestdata(t, "pax.tar")
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingReaderAt{r: bytes.NewReader(data)}
	x, err := openIndex(cr, int64(len(data)), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := x.(*Archive)
	var hdr int64
	for _, r := range a.headerRanges() {
		hdr += r.Len
	}
	if got := cr.n; got > hdr+blockSize {
		t.Fatalf("reopening read %d bytes; the headers are %d", got, hdr)
	}
	for i, e := range b.ents {
		if e.Size <= 0 {
			continue
		}
		for k := 0; k < 2; k++ {
			cr.n = 0
			rc, err := b.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, rc)
			rc.Close()
			if k == 1 && cr.n != e.Size {
				t.Fatalf("entry %d read again: %d bytes read, its size %d", i, cr.n, e.Size)
			}
		}
	}
}

type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestHeaderRangesBounded: a plain tar of more header runs than
// indexfmt.MaxRanges is digested in at most that many ranges, each a
// union of whole runs, the largest gaps kept; its index reopens it and a
// changed header between two merged runs is caught (the merged range
// covers it).
func TestHeaderRangesBounded(t *testing.T) {
	const n = 600
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i := 0; i < n; i++ {
		size := 100 + (i%7)*1000
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%03d", i), Mode: 0o644, Size: int64(size), Format: tar.FormatUSTAR}); err != nil {
			t.Fatal(err)
		}
		tw.Write(make([]byte, size))
	}
	tw.Close()
	data := buf.Bytes()
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rs := a.headerRanges()
	if len(rs) == 0 || len(rs) > 256 {
		t.Fatalf("%d ranges", len(rs))
	}
	for i := range a.ents {
		s, d := a.hdrStart(i), a.offs[i]
		covered := false
		for _, r := range rs {
			covered = covered || (r.Off <= s && d <= r.Off+r.Len)
		}
		if !covered {
			t.Fatalf("entry %d's headers [%d, %d) outside every range", i, s, d)
		}
	}
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openIndex(bytes.NewReader(data), int64(len(data)), p, nil); err != nil {
		t.Fatal(err)
	}
	// Entry 300's name changed (checksum made again): the digest fails.
	c := bytes.Clone(data)
	h := c[a.hdrStart(300):]
	h[0] ^= 'f' ^ 'g'
	fixChecksum(h[:blockSize])
	if _, err := openIndex(bytes.NewReader(c), int64(len(c)), p, nil); !errors.Is(err, arc.ErrStaleIndex) {
		t.Fatalf("a changed header inside a merged range: %v", err)
	}
}

// fixChecksum recomputes a ustar header block's checksum.
func fixChecksum(h []byte) {
	copy(h[148:156], "        ")
	var sum int
	for _, b := range h {
		sum += int(b)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// indexFuzzFiles are the archives FuzzIndexImport reopens: input byte 0
// picks one.
var indexFuzzFiles = []string{"gnu.tar", "pax.tar", "sparse-pax10.tar", "sparse-gnu.tar", "small.tar.gz", "small.tar.xz",
	"small.tar.zst", "small.tar.bz2", "small.tar.lz", "small.tar.lzma", "text.txt.gz", "seek.tar.gz"}

type fuzzRef struct {
	data    []byte
	at      map[int64]int // the entry whose data (a sparse one: header) starts there
	content [][]byte
	ents    []*arc.Entry
	index   []byte // its ExportIndex
}

var indexFuzz struct {
	once sync.Once
	refs []fuzzRef
}

// indexFuzzRefs opens every indexFuzzFiles archive normally: entries,
// contents and index, the reference a reopened one is held to.
func indexFuzzRefs(t testutil.TB) []fuzzRef {
	indexFuzz.once.Do(func() {
		for _, name := range indexFuzzFiles {
			data := readTestdata(t, name)
			a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: fuzzLimits}))
			if err != nil {
				panic(err)
			}
			r := fuzzRef{data: data, at: map[int64]int{}, ents: a.ents}
			for i := range a.ents {
				rc, err := a.Open(i)
				if err != nil {
					panic(err)
				}
				c, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					panic(err)
				}
				r.content = append(r.content, c)
				if !a.bare && a.offs[i] >= 0 {
					r.at[a.offs[i]] = i
				}
			}
			if r.index, err = a.caps().ExportIndex(false); err != nil {
				panic(err)
			}
			a.Close()
			indexFuzz.refs = append(indexFuzz.refs, r)
		}
	})
	return indexFuzz.refs
}

// FuzzIndexImport: a tar index payload, altered any way, over the real
// archive it was made of: the import never panics, hangs or allocates
// beyond its bounds and fails with ErrStaleIndex, ErrUnsupported or
// ErrLimit; an Archive it opens reads, through Open and OpenAt (with
// checkpoints), either with an error or exactly the content of the
// archive's entry whose data lies where the index says, under the name
// the archive gives it: never other bytes.
func FuzzIndexImport(f *testing.F) {
	for k, r := range indexFuzzRefs(f) {
		f.Add(uint8(k), r.index)
	}
	f.Fuzz(func(t *testing.T, k uint8, payload []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		refs := indexFuzzRefs(t)
		ref := &refs[int(k)%len(refs)]
		x, err := openIndex(bytes.NewReader(ref.data), int64(len(ref.data)), payload, &arc.Config{Limits: fuzzLimits})
		if err != nil {
			if !errors.Is(err, arc.ErrStaleIndex) && !errors.Is(err, errs.ErrUnsupported) && !errors.Is(err, errs.ErrLimit) {
				t.Fatalf("import: %v", err)
			}
			return
		}
		a := x.(*Archive)
		defer a.Close()
		a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 16 << 20})
		for i, e := range a.ents {
			if i >= 64 {
				break
			}
			got, err := readEntry(a, i)
			if err != nil {
				continue
			}
			want, name := ref.content[0], ref.ents[0].Name
			if !a.bare {
				j, ok := ref.at[a.offs[i]]
				if !ok {
					t.Fatalf("entry %d read at %d, where no entry's data starts", i, a.offs[i])
				}
				want, name = ref.content[j], ref.ents[j].Name
			}
			if !bytes.Equal(got, want) || (!a.bare && e.Name != name) {
				t.Fatalf("entry %d %q read %d bytes, not entry %q's %d", i, e.Name, len(got), name, len(want))
			}
			if len(got) > 2 {
				if part, _, err := readFrom(a, i, int64(len(got))/2, 1<<20); err == nil && !bytes.Equal(part, got[len(got)/2:]) {
					t.Fatalf("entry %d read at an offset differs", i)
				}
			}
		}
		if _, err := a.caps().ExportIndex(false); err != nil {
			t.Fatalf("export of a reopened archive: %v", err)
		}
	})
}

// readEntry reads entry i of a through Open (at most 8 MiB).
func readEntry(a *Archive, i int) ([]byte, error) {
	rc, err := a.Open(i)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, 8<<20))
}

// TestIndexForgedShape: an index that calls a tarball a single
// compressed file, or moves a sparse entry's header offset (from which a
// plain tar's sparse entry is read), fails the open of the entry.
func TestIndexForgedShape(t *testing.T) {
	data := readTestdata(t, "small.tar.gz")
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.bare, a.ents = true, []*arc.Entry{bareEntry(a.kind, &decomp{}, "x.gz", int64(len(data)))}
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := reopen(p, data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open(0); !errors.Is(err, arc.ErrStaleIndex) {
		t.Errorf("a tarball as a single file: %v", err)
	}
	for _, name := range []string{"sparse-gnu.tar", "sparse-pax01.tar", "sparse-pax10.tar"} {
		data := readTestdata(t, name)
		a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		moved := 0
		for i, e := range a.ents {
			if !isSparse(e.Sys.(*tar.Header)) || a.offs[i] < 0 {
				continue
			}
			orig := a.offs[i]
			for _, off := range []int64{orig + blockSize, orig - blockSize} {
				if off < 0 {
					continue
				}
				b, err := reopen(movedIndex(t, a, i, off), data, 0)
				if err == nil {
					_, err = b.Open(i)
				}
				if !errors.Is(err, arc.ErrStaleIndex) {
					t.Errorf("%s: sparse entry %d's header moved from %d to %d: %v", name, i, orig, off, err)
				}
				moved++
			}
		}
		if moved == 0 {
			t.Errorf("%s: no sparse entry", name)
		}
		a.Close()
	}
}
