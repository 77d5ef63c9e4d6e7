package testutil

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/go-unarc/unarc/internal/engine"
)

// Shared by the checkpoint kind tests of the format packages (sevenzip,
// zip): a first pass that takes checkpoints, tampered and bad
// checkpoints, and resumed readers in parallel.

// FirstPass reads entry i of a whole through Open and then once through
// OpenAt from 0 (which takes the checkpoints), failing t where the two
// differ; it returns the entry's bytes.
func FirstPass(t TB, a Opener, i int) []byte {
	t.Helper()
	want, err := ReadClose(a.Open(i))
	if err != nil {
		t.Fatalf("entry %d: %v", i, err)
	}
	r, start, err := a.OpenAt(i, 0)
	if err != nil || start != 0 {
		t.Fatalf("entry %d first pass: start %d, %v", i, start, err)
	}
	got, err := ReadClose(r, nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("entry %d first pass: %v", i, err)
	}
	return want
}

// Tampered is cps (states copied) altered as tamper says: "none", "state"
// (the state's last byte flipped) or "in" (the input offset one byte
// on).
func Tampered(cps []engine.Checkpoint, tamper string) []engine.Checkpoint {
	mod := make([]engine.Checkpoint, len(cps))
	for k, cp := range cps {
		cp.State = bytes.Clone(cp.State)
		switch tamper {
		case "state":
			cp.State[len(cp.State)-1] ^= 0x10
		case "in":
			cp.In += 8
		}
		mod[k] = cp
	}
	return mod
}

// CheckRestored reads 3000 bytes 100 past a restored checkpoint, at at
// in entry i whose bytes are want: they must be right and, when the
// checkpoint was not tampered with, read from it.
func CheckRestored(t TB, b AtOpener, tamper string, i int, at int64, want []byte) {
	t.Helper()
	off := at + 100
	got, start, err := ReadAt(b, i, off, 3000)
	if err != nil {
		t.Fatalf("%s: entry %d at %d: %v", tamper, i, off, err)
	}
	if len(got) == 0 || !bytes.Equal(got, want[off:off+int64(len(got))]) {
		t.Fatalf("%s: entry %d at %d (from %d): bytes differ", tamper, i, off, start)
	}
	if tamper == "none" && start != at {
		t.Fatalf("restored checkpoint at %d not used (start %d)", at, start)
	}
}

// CutCheck makes a checkpoint fail its own checks: a BZip2 state one
// byte long (a PPMd state's size is checked by the decoder), else a
// check span one byte short.
func CutCheck(cp *engine.Checkpoint) {
	if cp.Kind == "bzip2" {
		cp.State = append(cp.State, 0)
	} else {
		cp.CheckLen--
	}
}

// RefuseBad checks that restore refuses cp altered by each of bad, one
// at a time.
func RefuseBad(t TB, cp engine.Checkpoint, restore func([]engine.Checkpoint) error, bad ...func(*engine.Checkpoint)) {
	t.Helper()
	for _, f := range bad {
		c := cp
		f(&c)
		if err := restore([]engine.Checkpoint{c}); err == nil {
			t.Fatalf("bad checkpoint restored: %s at %d (in %d)", c.Kind, c.Out, c.In)
		}
	}
}

// ConcurrentResumes runs 4 goroutines that each open 6 readers at random
// offsets of random entries of want (their contents) through OpenAt,
// read up to 4 KiB, check the bytes, close the reader and check that it
// then fails. Run with -race.
func ConcurrentResumes(t TB, a AtOpener, want map[int][]byte, seed uint64) {
	t.Helper()
	var idx []int
	for _, i := range slices.Sorted(maps.Keys(want)) { // the seed alone picks the reads
		if len(want[i]) >= 2 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		t.Fatal("no entry to read")
	}
	var wg sync.WaitGroup
	errc := make(chan error, 4*6*2) // room for every failure: no sender blocks
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), seed))
			for range 6 {
				i := idx[rng.IntN(len(idx))]
				off := rng.Int64N(int64(len(want[i])))
				r, start, err := a.OpenAt(i, off)
				if err != nil {
					errc <- fmt.Errorf("entry %d at %d: %w", i, off, err)
					return
				}
				buf := make([]byte, 4096)
				n, _ := io.ReadFull(r, buf)
				if !bytes.Equal(buf[:n], want[i][start:start+int64(n)]) {
					errc <- fmt.Errorf("entry %d at %d (from %d): bytes differ", i, off, start)
				}
				r.Close()
				if n, err := r.Read(buf); n != 0 || err == nil {
					errc <- fmt.Errorf("entry %d: read after Close: %d bytes, %v", i, n, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}
