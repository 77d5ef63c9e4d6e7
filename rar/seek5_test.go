package rar

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/unpack50"
)

var filtersApplied = unpack50.FiltersApplied

const seekData = "../testdata/seek/"

var r5Archives = []string{"r5-solid.rar", "r5-solid-aes.rar", "r5-plain.rar", "r5-plain-aes.rar", "r5-m5.rar", "r5-vol.part1.rar"}

// openCP opens a seek archive with checkpoints every 4 KiB.
func openCP(t *testing.T, name string, mem int64) *Archive {
	t.Helper()
	f, err := os.Open(seekData + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	a, err := Open(f, st.Size(), config(t, seekData+name, "seek"))
	if err != nil {
		t.Fatal(err)
	}
	a.SetCheckpoints(arc.CheckpointPolicy{Interval: 4096, MaxMemory: mem})
	t.Cleanup(func() { a.Close() })
	return a
}

// contents reads every entry sequentially through OpenAt (which takes
// the checkpoints).
func contents(t *testing.T, a *Archive) [][]byte {
	t.Helper()
	var out [][]byte
	for i := range a.Entries() {
		rc, _, err := a.OpenAt(i, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", a.Entries()[i].Name, err)
		}
		out = append(out, b)
	}
	return out
}

// readAt reads n bytes of entry i at off through OpenAt.
func readAt(a *Archive, i int, off int64, n int) ([]byte, int64, error) {
	rc, start, err := a.OpenAt(i, off)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, off-start); err != nil {
		return nil, start, err
	}
	b := make([]byte, n)
	k, err := io.ReadFull(rc, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:k], start, err
}

// TestSeekRAR5Checkpoints: random OpenAt reads of every RAR5 seek
// archive (solid and not, AES, -m5, volumes) match the sequential
// read, and the reads after the first pass resume from checkpoints.
func TestSeekRAR5Checkpoints(t *testing.T) {
	for _, name := range r5Archives {
		t.Run(name, func(t *testing.T) {
			a := openCP(t, name, 64<<20)
			want := contents(t, a)
			st := a.CheckpointStats()
			if st.Count == 0 {
				t.Fatal("no checkpoints taken")
			}
			before, fromCP := resumed.Load(), 0
			rng := rand.New(rand.NewPCG(1, uint64(len(name))))
			for k := 0; k < 200; k++ {
				i := rng.IntN(len(want))
				if len(want[i]) == 0 {
					continue
				}
				off := rng.Int64N(int64(len(want[i])))
				got, start, err := readAt(a, i, off, 1+rng.IntN(10000))
				if err != nil {
					t.Fatalf("%s at %d: %v", a.Entries()[i].Name, off, err)
				}
				if start > 0 {
					fromCP++
				}
				if w := want[i][off:min(off+int64(len(got)), int64(len(want[i])))]; !bytes.Equal(got, w) || len(got) == 0 && off < int64(len(want[i])) {
					t.Fatalf("%s at %d (from %d): bytes differ", a.Entries()[i].Name, off, start)
				}
			}
			if resumed.Load() == before {
				t.Fatalf("%d reads started at a checkpoint, %d resumes", fromCP, resumed.Load()-before)
			}
			t.Logf("%d checkpoints, %d bytes; %d of 200 reads from one", st.Count, st.Bytes, fromCP)
		})
	}
}

// TestSeekRAR5Filters: x.elf decodes with E8/E8E9 filters over its
// whole length, so it takes no checkpoint (one is never taken with a
// filter pending) and OpenAt in it restarts; c.txt after it in the solid
// stream resumes from checkpoints whose window holds x.elf's data.
func TestSeekRAR5Filters(t *testing.T) {
	before := filtersApplied()
	a := openCP(t, "r5-solid.rar", 64<<20)
	want := contents(t, a)
	if filtersApplied() == before {
		t.Fatal("no filter in r5-solid.rar")
	}
	idx := map[string]int{}
	for i, e := range a.Entries() {
		idx[e.Name] = i
	}
	elf, txt := idx["x.elf"], idx["c.txt"]
	if elf >= txt || len(want[elf]) < 16<<10 {
		t.Fatal("x.elf is not before c.txt")
	}
	n := 0
	for _, i := range []int{elf, txt} {
		for off := int64(1); off < int64(len(want[i])); off += 1999 {
			got, start, err := readAt(a, i, off, 3000)
			if err != nil {
				t.Fatal(err)
			}
			if start > 0 {
				n++
			}
			if i == elf && start != 0 {
				t.Fatalf("x.elf at %d starts at %d with filters pending", off, start)
			}
			if !bytes.Equal(got, want[i][off:off+int64(len(got))]) {
				t.Fatalf("%s at %d (from %d): bytes differ", a.Entries()[i].Name, off, start)
			}
		}
	}
	if n == 0 {
		t.Fatal("no read of c.txt from a checkpoint")
	}
}

// TestSeekRAR5Evict: under a cache that holds about one checkpoint the
// reads stay right and checkpoints are evicted.
func TestSeekRAR5Evict(t *testing.T) {
	a := openCP(t, "r5-solid.rar", 0)
	want := contents(t, a)
	one := int64(0)
	{
		b := openCP(t, "r5-solid.rar", 64<<20)
		contents(t, b)
		st := b.CheckpointStats()
		one = st.Bytes/int64(st.Count) + 1000
	}
	a = openCP(t, "r5-solid.rar", one)
	for k := 0; k < 2; k++ {
		for i := range want {
			for off := int64(0); off < int64(len(want[i])); off += 5003 {
				got, _, err := readAt(a, i, off, 100)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want[i][off:off+int64(len(got))]) {
					t.Fatalf("entry %d at %d: bytes differ", i, off)
				}
			}
		}
	}
	st := a.CheckpointStats()
	if st.Evicted == 0 || st.Bytes > one {
		t.Fatalf("stats %+v with MaxMemory %d", st, one)
	}
}

// TestSeekRAR5Concurrent: OpenAt reads from several goroutines while the
// Archive closes: right bytes or a closed error, never a race or panic.
func TestSeekRAR5Concurrent(t *testing.T) {
	a := openCP(t, "r5-solid-aes.rar", 64<<20)
	want := contents(t, a)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for k := 0; k < 50; k++ {
				i := rng.IntN(len(want))
				if len(want[i]) == 0 {
					continue
				}
				off := rng.Int64N(int64(len(want[i])))
				got, _, err := readAt(a, i, off, 500)
				if err != nil {
					return // closed
				}
				if !bytes.Equal(got, want[i][off:off+int64(len(got))]) {
					t.Errorf("entry %d at %d: bytes differ", i, off)
					return
				}
			}
		}(g)
	}
	a.Close()
	wg.Wait()
}

// TestSeekRAR5BadCheckpoint: a damaged checkpoint fails with ErrCorrupt.
func TestSeekRAR5BadCheckpoint(t *testing.T) {
	a := openCP(t, "r5-plain.rar", 64<<20)
	contents(t, a)
	i := 0
	cp, ok := a.cps.Find(i, 1<<40)
	if !ok {
		t.Fatal("no checkpoint of entry 0")
	}
	bad := cp
	bad.State = bytes.Clone(cp.State[:len(cp.State)-1])
	a.cps.Clear()
	a.cps.Add(bad)
	if _, _, err := a.OpenAt(i, cp.Out); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("cut checkpoint: %v", err)
	}
}

// TestSeekRAR5SolidStart: a solid entry read at an offset before its
// first Interval resumes from the checkpoint at its start, without
// decoding the entries before it in the run.
func TestSeekRAR5SolidStart(t *testing.T) {
	a := openCP(t, "r5-solid.rar", 64<<20)
	want := contents(t, a)
	i := len(want) - 1
	for i >= 0 && (a.Entries()[i].Name != "c.txt") {
		i--
	}
	r0, d0 := resumed.Load(), redecoded.Load()
	got, start, err := readAt(a, i, 100, 1000)
	if err != nil || start != 0 || !bytes.Equal(got, want[i][100:1100]) {
		t.Fatalf("c.txt at 100: start %d, %v", start, err)
	}
	if resumed.Load() != r0+1 || redecoded.Load() != d0 {
		t.Fatalf("%d resumes, %d predecessors decoded", resumed.Load()-r0, redecoded.Load()-d0)
	}
}

// TestSeekRAR5OpenTakesNone: ordinary reading (Open) takes no checkpoint.
func TestSeekRAR5OpenTakesNone(t *testing.T) {
	for _, name := range []string{"r5-solid.rar", "r5-plain.rar"} {
		a := openCP(t, name, 64<<20)
		for i := range a.Entries() {
			rc, err := a.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, rc); err != nil {
				t.Fatal(err)
			}
			rc.Close()
		}
		if st := a.CheckpointStats(); st.Taken != 0 {
			t.Fatalf("%s: Open took %+v", name, st)
		}
	}
}

// TestSeekRAR5AcrossVolumes: in the multi-volume solid archive some
// checkpoint resumes in a later volume than its entry's first, and the
// reads from it are right.
func TestSeekRAR5AcrossVolumes(t *testing.T) {
	a := openCP(t, "r5-vol.part1.rar", 64<<20)
	want := contents(t, a)
	n := 0
	for i, f := range a.files {
		if len(f.parts) < 2 {
			continue
		}
		for off := int64(1); off < f.e.Size; off += 997 {
			cp, ok := a.peekCP(i, f, off)
			if !ok || cp.In>>3 < f.parts[0].size {
				continue
			}
			got, start, err := readAt(a, i, off, 2000)
			if err != nil || start != cp.Out || !bytes.Equal(got, want[i][off:off+int64(len(got))]) {
				t.Fatalf("%s at %d from %d: %v", f.e.Name, off, start, err)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no checkpoint past an entry's first volume")
	}
}
