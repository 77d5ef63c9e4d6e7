package testutil

import (
	"bytes"
	"io"
	"math/rand/v2"
	"slices"
)

// Shared by the checkpoint kind tests of the format packages (sevenzip,
// zip): reads through an engine.EntrySeeker's OpenAt.

// AtOpener opens entry i at a point at or before off (engine.EntrySeeker).
type AtOpener interface {
	OpenAt(i int, off int64) (io.ReadCloser, int64, error)
}

// ReadAt reads n bytes (fewer at the end) at off of entry i through
// OpenAt and returns them and where the reader started.
func ReadAt(a AtOpener, i int, off int64, n int) ([]byte, int64, error) {
	r, start, err := a.OpenAt(i, off)
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	if _, err := io.CopyN(io.Discard, r, off-start); err != nil {
		return nil, start, err
	}
	buf := make([]byte, n)
	m, err := io.ReadFull(r, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:m], start, err
}

// RandomReads reads n bytes at count random offsets (seeded by seed) of
// random entries of want (their contents; empty ones are skipped)
// through OpenAt, failing t where a read fails, starts after its
// offset or gives other bytes than want. It returns how many reads
// started after the entry's start (resumed from a checkpoint).
func RandomReads(t TB, a AtOpener, want map[int][]byte, seed uint64, count, n int) int {
	t.Helper()
	var idx []int
	for i, w := range want {
		if len(w) > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		t.Fatal("no entry to read")
	}
	slices.Sort(idx) // map order is random: the seed alone picks the reads
	rng := rand.New(rand.NewPCG(seed, uint64(count)))
	resumed := 0
	for k := 0; k < count; k++ {
		i := idx[rng.IntN(len(idx))]
		w := want[i]
		off := rng.Int64N(int64(len(w)))
		got, start, err := ReadAt(a, i, off, n)
		if err != nil {
			t.Fatalf("entry %d at %d: %v", i, off, err)
		}
		if start > off {
			t.Fatalf("entry %d: start %d after %d", i, start, off)
		}
		if start > 0 {
			resumed++
		}
		if !bytes.Equal(got, w[off:min(off+int64(n), int64(len(w)))]) {
			t.Fatalf("entry %d at %d (from %d): bytes differ", i, off, start)
		}
	}
	return resumed
}
