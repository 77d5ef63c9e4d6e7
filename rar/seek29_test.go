package rar

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/unpack29"
)

const seek4Data = "testdata/seek4/"

var r4Archives = []string{"r4-solid.rar", "r4-plain.rar", "r4-solid-aes.rar", "r4-plain-hp.rar",
	"r4-vol.part1.rar", "r4-delta.rar", "r4-audio.rar", "../../../testdata/seek/solid4-big.rar",
	"r4-ppm-solid.rar", "r4-ppm.rar", "r4-ppm-solid-aes.rar", "r4-ppm-hp.rar"}

// slowPPMd reports whether, under -short, the tests that go over every
// RAR4 seek archive skip name: a PPMd archive, each of whose resumes
// restores and checks a 15 MiB model (seconds under -race).
// TestSeekRAR29PPMd still reads one of them.
func slowPPMd(name string) bool {
	return testing.Short() && strings.HasPrefix(name, "r4-ppm")
}

// openCP4 opens a RAR4 seek archive with checkpoints every 4 KiB.
func openCP4(t *testing.T, name string, mem int64) *Archive { return openCPIn(t, seek4Data, name, mem) }

// checkReads reads n random spans of random entries of a, and spans at
// and around every checkpoint, and compares them with want.
func checkReads(t testutil.TB, a *Archive, want [][]byte, seed uint64, n int) (fromCP int) {
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
			if slowPPMd(name) {
				t.Skip("PPMd: slow under -short")
			}
			a := openCP4(t, name, 64<<20)
			want := contents(t, a)
			st := a.caps().CheckpointStats()
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
	names := []string{"../../../testdata/seek/solid4-ppm.rar", "r4-ppm-solid-aes.rar", "r4-ppm-hp.rar"}
	reads := 30
	if testing.Short() {
		names, reads = names[1:2], 5
	}
	for _, name := range names {
		a := openCP4(t, name, 64<<20)
		if testing.Short() {
			a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 24 << 10, MaxMemory: 64 << 20})
		}
		want := contents(t, a)
		big := 0
		for _, cp := range a.cps.Snapshot() {
			if len(cp.State) > 128<<10 {
				big++ // a model: the window of a 64 KiB or 128 KiB entry is smaller
			}
		}
		before := resumed.Load()
		fromCP := checkReads(t, a, want, 3, reads)
		if big == 0 || fromCP == 0 || resumed.Load() == before {
			t.Fatalf("%s: %d checkpoints with a model, %d reads from one", name, big, fromCP)
		}
	}
}

// TestSeekRAR29Concurrent (and RAR5's): OpenAt reads from several goroutines while
// the Archive closes: right bytes or a closed error, never a race or
// panic.
func TestSeekRAR29Concurrent(t *testing.T) {
	for _, name := range []string{"r4-solid-aes.rar", "r4-ppm-solid-aes.rar"} {
		a := openCP4(t, name, 64<<20)
		closeWhileReading(t, a, contents(t, a))
	}
	a := openCP(t, "r5-solid-aes.rar", 64<<20)
	closeWhileReading(t, a, contents(t, a))
}

// closeWhileReading reads random spans of a from four goroutines (from
// checkpoints when a has them) and closes a meanwhile: right bytes or a
// closed error, never a race or panic.
func closeWhileReading(t testutil.TB, a *Archive, want [][]byte) {
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

// TestSeekRAR29BadCheckpoint: a RAR5 state under the rar29 kind is
// refused by the decoder (TestSeekBadCheckpoint cuts one).
func TestSeekRAR29BadCheckpoint(t *testing.T) {
	a := openCP4(t, "r4-plain.rar", 64<<20)
	contents(t, a)
	cp, ok := a.cps.Find(0, 1<<40)
	if !ok {
		t.Fatal("no checkpoint of entry 0")
	}
	bad := cp
	bad.State = append([]byte("rcp5"), cp.State[4:]...)
	a.cps.Clear()
	a.cps.Add(bad)
	if _, _, err := a.caps().OpenAt(0, cp.Out); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("foreign checkpoint: %v", err)
	}
}

// TestSeekRAR29Persist: checkpoints exported from one Archive and
// restored into another are verified on first use and serve reads
// (AES and volumes too); one whose state or Check is altered is
// rejected on first use and the read is still right; one whose fields
// do not fit its entry is ErrStaleIndex.
func TestSeekRAR29Persist(t *testing.T) {
	for _, name := range []string{"r4-solid-aes.rar", "r4-vol.part1.rar", "r4-delta.rar", "r4-ppm-solid-aes.rar", "r4-ppm.rar"} {
		if slowPPMd(name) {
			continue
		}
		a := openCP4(t, name, 64<<20)
		want := contents(t, a)
		cps, err := a.exportCheckpoints(false)
		if err != nil || len(cps) == 0 {
			t.Fatalf("%s: %d exported, %v", name, len(cps), err)
		}
		for _, alter := range []string{"", "state", "check"} {
			b := openCP4(t, name, 64<<20)
			in := make([]engine.Checkpoint, len(cps))
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
			if err := b.caps().RestoreCheckpoints(in); err != nil {
				t.Fatalf("%s %s: %v", name, alter, err)
			}
			checkReads(t, b, want, 5, 60)
			st := b.caps().CheckpointStats()
			if alter == "" && (st.Verified == 0 || st.Rejected != 0) || alter != "" && (st.Rejected == 0 || st.Verified != 0) {
				t.Fatalf("%s %q: %+v", name, alter, st)
			}
		}
		for what, f := range map[string]func(*engine.Checkpoint){
			"kind":  func(cp *engine.Checkpoint) { cp.Kind = "rar5" },
			"out":   func(cp *engine.Checkpoint) { cp.Out = 1 << 40 },
			"in":    func(cp *engine.Checkpoint) { cp.In = 1 << 40 },
			"span":  func(cp *engine.Checkpoint) { cp.CheckLen++ },
			"huge":  func(cp *engine.Checkpoint) { cp.State = append(cp.State, make([]byte, 5<<20)...) },
			"entry": func(cp *engine.Checkpoint) { cp.Stream = 1 << 20 },
		} {
			b := openCP4(t, name, 64<<20)
			cp := cps[len(cps)-1]
			f(&cp)
			if err := b.caps().RestoreCheckpoints([]engine.Checkpoint{cp}); !errors.Is(err, arc.ErrStaleIndex) {
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
		st := a.caps().CheckpointStats()
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
		cps, err := a.exportCheckpoints(false)
		if err != nil || len(cps) == 0 {
			t.Fatalf("%s: %d exported, %v", c.name, len(cps), err)
		}
		b := openCP4(t, c.name, 64<<20)
		if err := b.caps().RestoreCheckpoints(cps); err != nil {
			t.Fatal(err)
		}
		checkReads(t, b, want, 21, 50)
		if st := b.caps().CheckpointStats(); st.Verified == 0 || st.Rejected != 0 {
			t.Fatalf("%s: restored: %+v", c.name, st)
		}
	}
}
