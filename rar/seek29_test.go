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
	"github.com/go-unarc/unarc/rar/internal/unpack29"
)

const seek4Data = "testdata/seek4/"

var r4Archives = []string{"r4-solid.rar", "r4-plain.rar", "r4-solid-aes.rar", "r4-plain-hp.rar",
	"r4-vol.part1.rar", "r4-delta.rar", "r4-audio.rar", "../../../testdata/seek/solid4-big.rar",
	"r4-ppm-solid.rar", "r4-ppm.rar", "r4-ppm-solid-aes.rar", "r4-ppm-hp.rar"}

// openCP4 opens a RAR4 seek archive with checkpoints every 4 KiB.
func openCP4(t *testing.T, name string, mem int64) *Archive {
	t.Helper()
	f, err := os.Open(seek4Data + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	a, err := Open(f, st.Size(), config(t, seek4Data+name, "seek"))
	if err != nil {
		t.Fatal(err)
	}
	a.SetCheckpoints(arc.CheckpointPolicy{Interval: 4096, MaxMemory: mem})
	t.Cleanup(func() { a.Close() })
	return a
}

// checkReads reads n random spans of random entries of a, and spans at
// and around every checkpoint, and compares them with want.
func checkReads(t *testing.T, a *Archive, want [][]byte, seed uint64, n int) (fromCP int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 29))
	try := func(i int, off int64, size int) {
		if off < 0 || off >= int64(len(want[i])) {
			return
		}
		got, start, err := readAt(a, i, off, size)
		if err != nil {
			t.Fatalf("%s at %d: %v", a.Entries()[i].Name, off, err)
		}
		if start > 0 {
			fromCP++
		}
		end := min(off+int64(len(got)), int64(len(want[i])))
		if !bytes.Equal(got, want[i][off:end]) || len(got) == 0 {
			t.Fatalf("%s at %d (from %d): bytes differ", a.Entries()[i].Name, off, start)
		}
	}
	for k := 0; k < n; k++ {
		i := rng.IntN(len(want))
		if len(want[i]) == 0 {
			continue
		}
		try(i, rng.Int64N(int64(len(want[i]))), 1+rng.IntN(10000))
	}
	for _, cp := range a.cps.Snapshot() {
		i := cp.Entry
		for _, d := range []int64{-1, 0, 1, 4095, 4096} {
			try(i, cp.Out+d, 1+rng.IntN(3000))
		}
	}
	return fromCP
}

// TestSeekRAR29Checkpoints: random OpenAt reads of every RAR4 seek
// archive (solid and not, -p and -hp AES, volumes, E8, delta and audio
// filters) and reads around each checkpoint match the sequential read,
// and the reads after the first pass resume from checkpoints.
func TestSeekRAR29Checkpoints(t *testing.T) {
	for _, name := range r4Archives {
		t.Run(name, func(t *testing.T) {
			a := openCP4(t, name, 64<<20)
			want := contents(t, a)
			st := a.CheckpointStats()
			if st.Count == 0 {
				t.Fatal("no checkpoints taken")
			}
			for _, cp := range a.cps.Snapshot() {
				if cp.Kind != "rar29" {
					t.Fatalf("kind %q", cp.Kind)
				}
			}
			before := resumed.Load()
			fromCP := checkReads(t, a, want, uint64(len(name)), 200)
			if resumed.Load() == before || fromCP == 0 {
				t.Fatalf("%d reads started at a checkpoint, %d resumes", fromCP, resumed.Load()-before)
			}
			t.Logf("%d checkpoints, %d bytes; %d reads from one", st.Count, st.Bytes, fromCP)
		})
	}
}

// TestSeekRAR29Filters: the E8, delta and audio filters run in the
// archives, and reads inside and after the filtered entries match. x.elf
// (63 KiB) is one E8 block, whose output comes out whole when the block
// is decoded, so no read inside it resumes (none can); c.txt after it in
// the solid stream resumes from checkpoints whose window holds it. The
// delta and audio entries have many filter blocks and resume inside.
func TestSeekRAR29Filters(t *testing.T) {
	for _, c := range []struct {
		archive, entry string
		resumes        bool
	}{
		{"r4-solid.rar", "x.elf", false}, {"r4-solid.rar", "c.txt", true}, {"r4-plain.rar", "x.elf", false},
		{"r4-delta.rar", "d.bin", true}, {"r4-delta.rar", "w.wav", true}, {"r4-audio.rar", "w.wav", true},
		{"r4-audio.rar", "d.bin", true},
	} {
		before := unpack29.FiltersApplied()
		a := openCP4(t, c.archive, 64<<20)
		want := contents(t, a)
		if unpack29.FiltersApplied() == before {
			t.Fatalf("%s: no filter", c.archive)
		}
		i := -1
		for j, e := range a.Entries() {
			if e.Name == c.entry {
				i = j
			}
		}
		n := 0
		for off := int64(1); off < int64(len(want[i])); off += 1999 {
			got, start, err := readAt(a, i, off, 3000)
			if err != nil {
				t.Fatal(err)
			}
			if start > 0 {
				n++
			}
			if !bytes.Equal(got, want[i][off:off+int64(len(got))]) {
				t.Fatalf("%s: %s at %d (from %d): bytes differ", c.archive, c.entry, off, start)
			}
		}
		if n == 0 && c.resumes {
			t.Fatalf("%s: no read of %s from a checkpoint", c.archive, c.entry)
		}
	}
}

// TestSeekRAR29PPMd: streams with PPMd blocks (solid and not, plain
// and AES) take checkpoints inside them, whose state holds the model
// (larger than any window of these archives), and reads resume there.
func TestSeekRAR29PPMd(t *testing.T) {
	for _, name := range []string{"../../../testdata/seek/solid4-ppm.rar", "r4-ppm-solid-aes.rar", "r4-ppm-hp.rar"} {
		a := openCP4(t, name, 64<<20)
		want := contents(t, a)
		big := 0
		for _, cp := range a.cps.Snapshot() {
			if len(cp.State) > 128<<10 {
				big++ // a model: the window of a 64 KiB or 128 KiB entry is smaller
			}
		}
		before := resumed.Load()
		fromCP := checkReads(t, a, want, 3, 30)
		if big == 0 || fromCP == 0 || resumed.Load() == before {
			t.Fatalf("%s: %d checkpoints with a model, %d reads from one", name, big, fromCP)
		}
	}
}

// TestSeekRAR29Evict: under a cache that holds about one checkpoint the
// reads stay right and checkpoints are evicted.
func TestSeekRAR29Evict(t *testing.T) {
	b := openCP4(t, "r4-solid.rar", 64<<20)
	want := contents(t, b)
	st := b.CheckpointStats()
	one := st.Bytes/int64(st.Count) + 1000
	a := openCP4(t, "r4-solid.rar", one)
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
	st = a.CheckpointStats()
	if st.Evicted == 0 || st.Bytes > one {
		t.Fatalf("stats %+v with MaxMemory %d", st, one)
	}
}

// TestSeekRAR29Concurrent: OpenAt reads from several goroutines while
// the Archive closes: right bytes or a closed error, never a race or
// panic.
func TestSeekRAR29Concurrent(t *testing.T) {
	for _, name := range []string{"r4-solid-aes.rar", "r4-ppm-solid-aes.rar"} {
		a := openCP4(t, name, 64<<20)
		closeWhileReading(t, a, contents(t, a))
	}
}

// closeWhileReading reads random spans of a from four goroutines (from
// checkpoints when a has them) and closes a meanwhile: right bytes or a
// closed error, never a race or panic.
func closeWhileReading(t *testing.T, a *Archive, want [][]byte) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 29))
			for k := 0; k < 50; k++ {
				i := rng.IntN(len(want))
				if len(want[i]) == 0 {
					continue
				}
				off := rng.Int64N(int64(len(want[i])))
				got, _, err := readAt(a, i, off, 500)
				if err != nil {
					if !errors.Is(err, errArchiveClosed) {
						t.Errorf("entry %d at %d: %v", i, off, err)
					}
					return
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

// TestSeekRAR29BadCheckpoint: a damaged checkpoint fails with ErrCorrupt.
func TestSeekRAR29BadCheckpoint(t *testing.T) {
	a := openCP4(t, "r4-plain.rar", 64<<20)
	contents(t, a)
	cp, ok := a.cps.Find(0, 1<<40)
	if !ok {
		t.Fatal("no checkpoint of entry 0")
	}
	bad := cp
	bad.State = bytes.Clone(cp.State[:len(cp.State)-1])
	a.cps.Clear()
	a.cps.Add(bad)
	if _, _, err := a.OpenAt(0, cp.Out); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("cut checkpoint: %v", err)
	}
	// A RAR5 state under the rar29 kind is refused by the decoder too.
	bad = cp
	bad.State = append([]byte("rcp5"), cp.State[4:]...)
	a.cps.Clear()
	a.cps.Add(bad)
	if _, _, err := a.OpenAt(0, cp.Out); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("foreign checkpoint: %v", err)
	}
}

// TestSeekRAR29SolidStart: a solid entry read at an offset before its
// first Interval resumes from the checkpoint at its start, without
// decoding the entries before it in the run.
func TestSeekRAR29SolidStart(t *testing.T) {
	a := openCP4(t, "r4-solid.rar", 64<<20)
	want := contents(t, a)
	i := len(want) - 1
	for i >= 0 && a.Entries()[i].Name != "c.txt" {
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

// TestSeekRAR29OpenTakesNone: ordinary reading (Open) takes no checkpoint.
func TestSeekRAR29OpenTakesNone(t *testing.T) {
	for _, name := range []string{"r4-solid.rar", "r4-plain.rar"} {
		a := openCP4(t, name, 64<<20)
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

// TestSeekRAR29AcrossVolumes: in the multi-volume solid archive some
// checkpoint resumes in a later volume than its entry's first, and the
// reads from it are right.
func TestSeekRAR29AcrossVolumes(t *testing.T) {
	a := openCP4(t, "r4-vol.part1.rar", 64<<20)
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

// TestSeekRAR29Persist: checkpoints exported from one Archive and
// restored into another are verified on first use and serve reads
// (AES and volumes too); one whose state or Check is altered is
// rejected on first use and the read is still right; one whose fields
// do not fit its entry is ErrStaleIndex.
func TestSeekRAR29Persist(t *testing.T) {
	for _, name := range []string{"r4-solid-aes.rar", "r4-vol.part1.rar", "r4-delta.rar", "r4-ppm-solid-aes.rar", "r4-ppm.rar"} {
		a := openCP4(t, name, 64<<20)
		want := contents(t, a)
		cps, err := a.ExportCheckpoints()
		if err != nil || len(cps) == 0 {
			t.Fatalf("%s: %d exported, %v", name, len(cps), err)
		}
		for _, alter := range []string{"", "state", "check"} {
			b := openCP4(t, name, 64<<20)
			in := make([]arc.Checkpoint, len(cps))
			for k, cp := range cps {
				cp.State = bytes.Clone(cp.State)
				switch alter {
				case "state":
					cp.State[len(cp.State)-1-k%100] ^= 0x55 // the newest history
				case "check":
					cp.Check ^= 1
				}
				in[k] = cp
			}
			if err := b.RestoreCheckpoints(in); err != nil {
				t.Fatalf("%s %s: %v", name, alter, err)
			}
			checkReads(t, b, want, 5, 60)
			st := b.CheckpointStats()
			if alter == "" && (st.Verified == 0 || st.Rejected != 0) || alter != "" && (st.Rejected == 0 || st.Verified != 0) {
				t.Fatalf("%s %q: %+v", name, alter, st)
			}
		}
		for what, f := range map[string]func(*arc.Checkpoint){
			"kind":  func(cp *arc.Checkpoint) { cp.Kind = "rar5" },
			"out":   func(cp *arc.Checkpoint) { cp.Out = 1 << 40 },
			"in":    func(cp *arc.Checkpoint) { cp.In = 1 << 40 },
			"span":  func(cp *arc.Checkpoint) { cp.CheckLen++ },
			"huge":  func(cp *arc.Checkpoint) { cp.State = append(cp.State, make([]byte, 5<<20)...) },
			"entry": func(cp *arc.Checkpoint) { cp.Stream = 1 << 20 },
		} {
			b := openCP4(t, name, 64<<20)
			cp := cps[len(cps)-1]
			f(&cp)
			if err := b.RestoreCheckpoints([]arc.Checkpoint{cp}); !errors.Is(err, arc.ErrStaleIndex) {
				t.Fatalf("%s %s: %v", name, what, err)
			}
		}
	}
}

// TestSeekRAR20Checkpoints: RAR 2.0 and 1.5 entries (the committed
// Rar2.rar and Rar15.rar) take checkpoints, random reads from them match
// the sequential read, and exported checkpoints restore and verify.
func TestSeekRAR20Checkpoints(t *testing.T) {
	for _, c := range []struct{ name, kind string }{
		{"../../../testdata/rar20/Rar2.rar", "rar20"}, {"../../../testdata/rar15/Rar15.rar", "rar15"},
	} {
		a := openCP4(t, c.name, 64<<20)
		want := contents(t, a)
		st := a.CheckpointStats()
		for _, cp := range a.cps.Snapshot() {
			if cp.Kind != c.kind {
				t.Fatalf("%s: kind %q", c.name, cp.Kind)
			}
		}
		before := resumed.Load()
		fromCP := checkReads(t, a, want, 20, 200)
		if st.Count == 0 || resumed.Load() == before || fromCP == 0 {
			t.Fatalf("%s: %+v: %d reads started at a checkpoint", c.name, st, fromCP)
		}
		cps, err := a.ExportCheckpoints()
		if err != nil || len(cps) == 0 {
			t.Fatalf("%s: %d exported, %v", c.name, len(cps), err)
		}
		b := openCP4(t, c.name, 64<<20)
		if err := b.RestoreCheckpoints(cps); err != nil {
			t.Fatal(err)
		}
		checkReads(t, b, want, 21, 50)
		if st := b.CheckpointStats(); st.Verified == 0 || st.Rejected != 0 {
			t.Fatalf("%s: restored: %+v", c.name, st)
		}
	}
}
