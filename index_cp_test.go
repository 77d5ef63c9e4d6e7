package unarc

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/testutil"
)

// cpCountingReaderAt counts the bytes read through it.
type cpCountingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *cpCountingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// cpIndexArchives are testdata/seek archives whose seekable readers take
// checkpoints, one per checkpoint kind and with encryption.
var cpIndexArchives = []string{"lzma2.7z", "lzma2-aes.7z", "lzma-big.7z", "lzma-big-aes.7z", "deflate-words.zip", "deflate-words-aes.zip", "r5-words.rar", "r5-solid.rar", "r5-solid-aes.rar", "solid4-big.rar", "solid4-ppm.rar",
	"bzip2-7zz.zip", "bzip2-aes.zip", "bzip2-solid.7z", "bzip2-solid-aes.7z", "ppmd-o8.zip", "ppmd-o8-aes.zip", "ppmd-cut.zip", "ppmd-solid.7z", "ppmd-solid-aes.7z",
	"bcj2-lzma2-aes.7z"}

const cpTestInterval = 64 << 10

// skipSlowCheckpoints skips, under -short, the PPMd archives (7z, ZIP
// and RAR 3.x) but one
// (under the race detector all of them: internal/ppmd's own checkpoint
// tests cover the model): every resume copies and checks a model of
// 1 MiB and decodes PPMd, seconds per archive; under the race detector
// also the BCJ2 archive (the sevenzip package's tests cover it there).
func skipSlowCheckpoints(t *testing.T, name string) {
	if testing.Short() && (strings.HasPrefix(name, "ppmd-") || name == "solid4-ppm.rar") && (name != "ppmd-solid.7z" || raceOn) {
		t.Skip("slow PPMd checkpoint archive (the run without -short covers it)")
	}
	if testing.Short() && raceOn && strings.HasPrefix(name, "bcj2-") {
		t.Skip("slow BCJ2 checkpoint archive (the run without -race covers it)")
	}
}

// checkpointedIndex opens testdata/seek/name, reads every entry through
// a SeekableEntry (taking checkpoints) and returns the archive's bytes,
// the entries' contents and its index with checkpoints.
func checkpointedIndex(t *testing.T, name string) ([]byte, map[int][]byte, *Index) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seek", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)), WithPassword("seek"), WithCheckpoints(cpTestInterval, 64<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	es := a.Entries()
	want := testutil.ReadEach(t, len(es), func(i int) bool { return !es[i].IsDir() }, func(i int) (io.ReadCloser, error) { return a.OpenSeekable(es[i]) })
	taken := a.CheckpointStats().Count
	if taken == 0 {
		t.Fatal("no checkpoint taken")
	}
	plain, err := a.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.sections) != 0 {
		t.Fatalf("an index without IndexWithCheckpoints has %d sections", len(plain.sections))
	}
	idx, err := a.Index(IndexWithCheckpoints())
	if err != nil {
		t.Fatal(err)
	}
	cps := sectionCheckpoints(t, idx)
	if len(cps) == 0 || len(cps) > taken {
		t.Fatalf("%d checkpoints in the index, %d held", len(cps), taken)
	}
	return b, want, idx
}

func sectionCheckpoints(t *testing.T, idx *Index) []engine.Checkpoint {
	t.Helper()
	for _, s := range idx.sections {
		if s.tag == tagCheckpoints {
			cps, err := decodeCheckpoints(s.data)
			if err != nil {
				t.Fatal(err)
			}
			return cps
		}
	}
	return nil
}

// TestIndexCheckpointsRestored: checkpoints kept in an index (through
// MarshalBinary and ParseIndex) are restored into the archive reopened
// from it and used: reading the end of the largest entry of a solid
// folder reads less of the archive than without them (from the nearest
// checkpoint, verified on first use), and every random read gives the
// sequential bytes.
func TestIndexCheckpointsRestored(t *testing.T) {
	for _, name := range cpIndexArchives {
		t.Run(name, func(t *testing.T) {
			skipSlowCheckpoints(t, name)
			b, want, idx := checkpointedIndex(t, name)
			m, err := idx.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			idx2, err := ParseIndex(m)
			if err != nil {
				t.Fatal(err)
			}
			ncp := len(sectionCheckpoints(t, idx2))
			cr := &cpCountingReaderAt{r: bytes.NewReader(b)}
			a, err := Open(cr, int64(len(b)), WithIndex(idx2), WithPassword("seek"), WithCheckpoints(cpTestInterval, 64<<20))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if st := a.CheckpointStats(); st.Restored != int64(ncp) || st.Count != ncp {
				t.Fatalf("%d checkpoints in the index, stats %+v", ncp, st)
			}
			// The first read of the restored archive, the last byte of its
			// last entry, with the restored checkpoints and with none (the
			// same index without them): the solid folder is entered at a
			// checkpoint instead of its start.
			// The bytes read to decode, not those read to check a
			// restored checkpoint's input (once, without decoding).
			tail := func(a *Archive, cr *cpCountingReaderAt) int64 {
				before, checked := cr.n.Load(), cpcache.InputRead.Load()
				var last *Entry
				for _, e := range a.Entries() {
					if _, ok := want[e.Index]; ok && e.Size > 0 {
						last = e
					}
				}
				s, err := a.OpenSeekable(last)
				if err != nil {
					t.Fatal(err)
				}
				// Its last byte, then the one before: within a
				// non-solid entry the first read decodes ahead.
				for _, off := range []int64{last.Size - 1, last.Size - 2} {
					p := make([]byte, 1)
					if _, err := s.ReadAt(p, off); err != nil {
						t.Fatal(err)
					}
					if p[0] != want[last.Index][off] {
						t.Fatalf("%s: byte %d differs", last.Name, off)
					}
				}
				s.Close()
				return cr.n.Load() - before - (cpcache.InputRead.Load() - checked)
			}
			with := tail(a, cr)
			st := a.CheckpointStats()
			// BZip2 and PPMd take few checkpoints in these small
			// archives (a BZip2 block, or a 64 KiB cell of PPMd output,
			// is most of an entry), so the first reads may be served
			// otherwise; the random reads below must verify some.
			sparse := strings.HasPrefix(name, "bzip2-") || strings.HasPrefix(name, "ppmd-")
			if !sparse && st.Verified < 1 || st.Rejected != 0 {
				t.Fatalf("after reading the last entry's end: %+v", st)
			}
			plain := withCheckpoints(idx2, nil)
			plain.sections = nil
			cr0 := &cpCountingReaderAt{r: bytes.NewReader(b)}
			a0, err := Open(cr0, int64(len(b)), WithIndex(plain), WithPassword("seek"), WithCheckpoints(cpTestInterval, 64<<20))
			if err != nil {
				t.Fatal(err)
			}
			without := tail(a0, cr0)
			a0.Close()
			t.Logf("%d checkpoints: read %d bytes with them, %d without", ncp, with, without)
			// In a solid 7z folder the first read enters the folder at a
			// checkpoint; a ZIP entry is read from its start first (the
			// reader decodes ahead up to 1 MiB), the restored checkpoint
			// serves the read back (Verified, and none taken).
			if !sparse && st.Taken != 0 && strings.HasSuffix(name, ".zip") {
				t.Fatalf("checkpoints taken beside the restored ones: %+v", st)
			}
			if !sparse && strings.HasSuffix(name, ".7z") && with*10 > without*7 {
				t.Fatalf("read %d bytes from the restored checkpoints, %d without: not used", with, without)
			}
			for _, e := range a.Entries() {
				w, ok := want[e.Index]
				if !ok || e.Size == 0 {
					continue
				}
				s, err := a.OpenSeekable(e)
				if err != nil {
					t.Fatal(err)
				}
				randomReads(t, s, w, uint64(e.Index)+3, 20)
				s.Close()
			}
			if st := a.CheckpointStats(); st.Verified < 1 || st.Rejected != 0 {
				t.Fatalf("after the random reads: %+v", st)
			}
			// The reopened archive's index holds its checkpoints again.
			idx3, err := a.Index(IndexWithCheckpoints())
			if err != nil {
				t.Fatal(err)
			}
			if n := len(sectionCheckpoints(t, idx3)); n == 0 {
				t.Fatal("the reopened archive's index holds no checkpoint")
			}
		})
	}
}

// randomReads compares ReadAt at random offsets with want.
func randomReads(t *testing.T, s *SeekableEntry, want []byte, seed uint64, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	for range n {
		off := r.Int64N(int64(len(want)))
		p := make([]byte, min(int64(r.IntN(5000)+1), int64(len(want))-off))
		if _, err := s.ReadAt(p, off); err != nil && err != io.EOF {
			t.Fatalf("ReadAt %d: %v", off, err)
		}
		if !bytes.Equal(p, want[off:off+int64(len(p))]) {
			t.Fatalf("ReadAt %d: bytes differ", off)
		}
	}
}

// withCheckpoints returns idx with its checkpoint section replaced by cps.
func withCheckpoints(idx *Index, cps []engine.Checkpoint) *Index {
	x := *idx
	x.sections = []indexSection{{tagCheckpoints, encodeCheckpoints(cps)}}
	return &x
}

// TestIndexCheckpointsTampered: checkpoints altered in an index (with a
// valid checksum: as a hostile index would be) never give wrong bytes.
// Those whose fields do not fit the archive fail the open with
// ErrStaleIndex; those whose state, check or input digest is altered
// are dropped on first use, and the read decodes from an earlier point.
func TestIndexCheckpointsTampered(t *testing.T) {
	for _, name := range cpIndexArchives {
		t.Run(name, func(t *testing.T) {
			skipSlowCheckpoints(t, name)
			b, want, idx := checkpointedIndex(t, name)
			orig := sectionCheckpoints(t, idx)
			open := func(x *Index) (*Archive, error) {
				m, err := x.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				y, err := ParseIndex(m)
				if err != nil {
					return nil, err
				}
				return Open(bytes.NewReader(b), int64(len(b)), WithIndex(y), WithPassword("seek"), WithCheckpoints(cpTestInterval, 64<<20))
			}
			edit := func(f func(cp *engine.Checkpoint)) []engine.Checkpoint {
				cps := make([]engine.Checkpoint, len(orig))
				for i, cp := range orig {
					cp.State = append([]byte(nil), cp.State...)
					f(&cp)
					cps[i] = cp
				}
				return cps
			}
			stale := map[string]func(cp *engine.Checkpoint){
				"stream":   func(cp *engine.Checkpoint) { cp.Stream += 5 },
				"out":      func(cp *engine.Checkpoint) { cp.Out = 1 << 40 },
				"in":       func(cp *engine.Checkpoint) { cp.In = 1 << 40 },
				"kind":     func(cp *engine.Checkpoint) { cp.Kind = map[string]string{"lzma": "lzma2", "lzma2": "lzma"}[cp.Kind] },
				"checkLen": func(cp *engine.Checkpoint) { cp.CheckLen-- },
				"huge":     func(cp *engine.Checkpoint) { cp.State = append(cp.State, make([]byte, 1<<20)...) },
			}
			for what, f := range stale {
				a, err := open(withCheckpoints(idx, edit(f)))
				if err == nil {
					a.Close()
					t.Errorf("%s: opened", what)
				} else if !errors.Is(err, ErrStaleIndex) {
					t.Errorf("%s: %v, want ErrStaleIndex", what, err)
				}
			}
			dropped := map[string]func(cp *engine.Checkpoint){
				"check": func(cp *engine.Checkpoint) { cp.Check ^= 1 },
				// The digest of the archive bytes the state came from: an
				// archive changed before the checkpoint (issue 30 item 8).
				"input":  func(cp *engine.Checkpoint) { cp.Input[5] ^= 1 },
				"window": func(cp *engine.Checkpoint) { flipWindow(cp.State) },
				"state":  func(cp *engine.Checkpoint) { cp.State[len(cp.State)/3] ^= 0x40 },
				"prob":   func(cp *engine.Checkpoint) { cp.State[min(200, len(cp.State)-1)] ^= 1 },
				"cut":    func(cp *engine.Checkpoint) { cp.State = cp.State[:len(cp.State)-1] },
				"shift": func(cp *engine.Checkpoint) {
					cp.Out += 16 // still in the folder, but not where the state is
					if cp.CheckLen < engine.CheckSpan {
						cp.CheckLen -= 16
					}
				},
			}
			for what, f := range dropped {
				a, err := open(withCheckpoints(idx, edit(f)))
				if errors.Is(err, ErrStaleIndex) && what != "check" {
					continue // refused at once: as good
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				for _, e := range a.Entries() {
					w, ok := want[e.Index]
					if !ok || e.Size == 0 {
						continue
					}
					s, err := a.OpenSeekable(e)
					if err != nil {
						t.Fatal(err)
					}
					for _, off := range []int64{e.Size - 1, e.Size - 2, e.Size / 2, e.Size/4 + 1, 1} {
						p := make([]byte, e.Size-off)
						if _, err := s.ReadAt(p, off); err != nil && err != io.EOF {
							t.Fatalf("%s: %s at %d: %v", what, e.Name, off, err)
						}
						if !bytes.Equal(p, w[off:]) {
							t.Fatalf("%s: %s at %d: wrong bytes", what, e.Name, off)
						}
					}
					s.Close()
				}
				st := a.CheckpointStats()
				if st.Rejected == 0 || st.Verified != 0 {
					t.Errorf("%s: %+v, want every checkpoint used rejected", what, st)
				}
				a.Close()
			}
		})
	}
}

// TestIndexCheckpointsWrongPassword: checkpoints of an encrypted BCJ2
// folder kept in an index, restored with a wrong password, are rejected
// on first use and every read fails with ErrPassword or ErrChecksum: none
// hands out bytes decrypted with the wrong key as good.
func TestIndexCheckpointsWrongPassword(t *testing.T) {
	b, want, idx := checkpointedIndex(t, "bcj2-lzma2-aes.7z")
	ncp := len(sectionCheckpoints(t, idx))
	a, err := Open(bytes.NewReader(b), int64(len(b)), WithIndex(idx), WithPassword("wrong"), WithCheckpoints(cpTestInterval, 64<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if st := a.CheckpointStats(); st.Restored != int64(ncp) {
		t.Fatalf("%d checkpoints in the index, stats %+v", ncp, st)
	}
	for _, e := range a.Entries() {
		if len(want[e.Index]) == 0 {
			continue
		}
		wrong := func(err error) bool { return errors.Is(err, ErrPassword) || errors.Is(err, ErrChecksum) }
		s, err := a.OpenSeekable(e) // from the checkpoint before the entry, if any
		if err != nil {
			if !wrong(err) {
				t.Fatalf("%s: %v", e.Name, err)
			}
			continue
		}
		for _, off := range []int64{e.Size - 1, e.Size / 2, 1} {
			p := make([]byte, min(3000, e.Size-off))
			if _, err := s.ReadAt(p, off); !wrong(err) {
				t.Fatalf("%s at %d: %v", e.Name, off, err)
			}
		}
		s.Close()
	}
	if st := a.CheckpointStats(); st.Verified != 0 || st.Rejected == 0 {
		t.Fatalf("%+v", st)
	}
}

// flipWindow alters the last byte of a checkpoint state: its window's
// newest history byte, which the next bytes decoded most likely copy.
func flipWindow(st []byte) { st[len(st)-1] ^= 0x5a }
