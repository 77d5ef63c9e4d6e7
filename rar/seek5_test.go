package rar

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/rar/internal/unpack50"
)

var filtersApplied = unpack50.FiltersApplied

const seekData = "../testdata/seek/"

var r5Archives = []string{"r5-solid.rar", "r5-solid-aes.rar", "r5-plain.rar", "r5-plain-aes.rar", "r5-m5.rar", "r5-vol.part1.rar"}

// openCP opens a seek archive with checkpoints every 4 KiB.
func openCP(t *testing.T, name string, mem int64) *Archive { return openCPIn(t, seekData, name, mem) }

// contents reads every entry sequentially through OpenAt (which takes
// the checkpoints).
func contents(t testutil.TB, a *Archive) [][]byte {
	t.Helper()
	var out [][]byte
	for i := range a.Entries() {
		rc, _, err := a.caps().OpenAt(i, 0)
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
	rc, start, err := a.caps().OpenAt(i, off)
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
			st := a.caps().CheckpointStats()
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
