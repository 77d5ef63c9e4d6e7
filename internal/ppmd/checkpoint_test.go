package ppmd

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// cpDecoder is what both readers offer for checkpoints.
type cpDecoder interface {
	io.Reader
	CanCheckpoint() bool
	CheckpointSize() int
	Checkpoint(dst []byte) ([]byte, int64, int64)
	Total() int64
}

type cpTaken struct {
	state   []byte
	out, in int64
}

// decodeTaking decodes z in reads of random sizes and takes a checkpoint
// about every `every` bytes, checking its size.
func decodeTaking(t *testing.T, z cpDecoder, every int64, seed uint64) ([]byte, []cpTaken) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var out bytes.Buffer
	var cps []cpTaken
	next := every
	buf := make([]byte, 1<<16)
	for {
		n, err := z.Read(buf[:1+rng.IntN(8192)])
		out.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if int64(out.Len()) >= next && z.CanCheckpoint() {
			next += every
			size := z.CheckpointSize()
			st, o, in := z.Checkpoint(nil)
			if len(st) != size || o != int64(out.Len()) || o != z.Total() {
				t.Fatalf("checkpoint of %d bytes (said %d) at %d, %d read", len(st), size, o, out.Len())
			}
			cps = append(cps, cpTaken{st, o, in})
		}
	}
	return out.Bytes(), cps
}

// dirty fills a model's arena with another stream's leftovers, so a
// restore that leaves a byte of the arena unset shows.
func dirty(t *testing.T, u *units, n int) {
	u.useArena(n)
	for i := range u.mem {
		u.mem[i] = byte(i*131 + 7)
	}
	for i := range u.symPos {
		u.symPos[i] = byte(i)
	}
}

// shortCps is the checkpoints a resume test tries: all, 3 under -short,
// 1 under -short with the race detector (PPMd decodes ten times slower).
func shortCps(cps []cpTaken) []cpTaken {
	switch {
	case testing.Short() && raceOn:
		return cps[:min(len(cps), 1)]
	case testing.Short():
		return cps[:min(len(cps), 3)]
	}
	return cps
}

// TestCheckpoint7zResume: snapshots taken along 7z PPMd streams (orders
// 2 to 32, arenas that fill and restart) restore into a model whose
// arena holds garbage and decode the same bytes as the first decode to
// the end (the range coder ends cleanly there): a model field the
// snapshot misses would change them.
func TestCheckpoint7zResume(t *testing.T) {
	restarted := false
	for _, f := range loadFacts(t, "7z") {
		packed := packed7z(t, f.Archive)
		z, err := NewReader7z(bytes.NewReader(packed), f.Order, f.Mem, f.Size)
		if err != nil {
			t.Fatal(err)
		}
		want, cps := decodeTaking(t, z, max(f.Size/7, 1), uint64(f.Size))
		restarted = restarted || z.m.restarts > 1
		z.Close()
		if len(cps) < 3 && f.Size > 64<<10 {
			t.Fatalf("%s: %d checkpoints", f.Archive, len(cps))
		}
		for _, c := range shortCps(cps) {
			var r Reader7z
			r.m = modelPool.get()
			dirty(t, &r.m.units, int(f.Mem))
			r.m.see[3][4] = see{summ: 999, shift: 2, count: 1}
			r.m.binSumm[5][6] = 12345
			r.m.orderFall, r.m.runLength, r.m.initEsc, r.m.hiBitsFlag = 77, 5, 3, 8
			if err := r.ResetAt7z(bytes.NewReader(packed[c.in:]), f.Order, f.Mem, f.Size, c.state, c.out, c.in); err != nil {
				t.Fatalf("%s at %d: %v", f.Archive, c.out, err)
			}
			got, err := io.ReadAll(r.Guarded())
			if err != nil {
				t.Fatalf("%s from %d: %v", f.Archive, c.out, err)
			}
			if !bytes.Equal(got, want[c.out:]) {
				t.Fatalf("%s from %d: bytes differ", f.Archive, c.out)
			}
			r.Close()
		}
	}
	if !restarted {
		t.Fatal("no stream restarted its model")
	}
}

// TestCheckpointZipResume: the same for ZIP PPMd8 entries, with restart
// and cut-off restoration.
func TestCheckpointZipResume(t *testing.T) {
	restarted, cut := false, false
	for _, name := range ppmdZips {
		for _, e := range ppmdEntries(t, zipTestdata(name)) {
			if e.Size < 4096 {
				continue
			}
			z, err := NewReaderZip(bytes.NewReader(e.Packed), e.Size, 0)
			if err != nil {
				t.Fatal(err)
			}
			want, cps := decodeTaking(t, z, max(e.Size/6, 1), uint64(e.Size))
			restarted = restarted || z.m.restarts > 1
			cut = cut || z.m.cutOffs > 0
			z.Close()
			cps = shortCps(cps)
			for _, c := range cps {
				var r ReaderZip
				r.m = model8Pool.get()
				dirty(t, &r.m.units, 1<<20+3)
				r.m.see[3][4] = see{summ: 999, shift: 2, count: 1}
				r.m.binSumm[5][6] = 12345
				r.m.orderFall, r.m.runLength, r.m.initEsc = 77, 5, 3
				if err := r.ResetAt(bytes.NewReader(e.Packed[c.in:]), zipHdr(e), e.Size, 0, c.state, c.out, c.in); err != nil {
					t.Fatalf("%s/%s at %d: %v", name, e.Name, c.out, err)
				}
				got, err := io.ReadAll(r.Guarded())
				if err != nil {
					t.Fatalf("%s/%s from %d: %v", name, e.Name, c.out, err)
				}
				if !bytes.Equal(got, want[c.out:]) {
					t.Fatalf("%s/%s from %d: bytes differ", name, e.Name, c.out)
				}
				r.Close()
			}
		}
	}
	if !restarted || !cut {
		t.Fatalf("restarted %v, cut off %v: both restorations must be covered", restarted, cut)
	}
}

// TestCheckpointCutBudget: a model restored from a checkpoint has its
// cut-offs bounded (cutBudget: a crafted state could make them walk
// shared successors once per path or repeat forever); a real model's
// cut-off stays within the budget, and a budget run out is ErrCorrupt
// through Guarded, not a panic.
func TestCheckpointCutBudget(t *testing.T) {
	e := ppmdEntries(t, zipTestdata("ppmd-cutoff.zip"))[0]
	z, err := NewReaderZip(bytes.NewReader(e.Packed), e.Size, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, cps := decodeTaking(t, z, max(e.Size/8, 1), uint64(e.Size))
	z.Close()
	restoredCut := false
	for _, c := range shortCps(cps) {
		for _, starve := range []bool{false, true} {
			var r ReaderZip
			if err := r.ResetAt(bytes.NewReader(e.Packed[c.in:]), zipHdr(e), e.Size, 0, c.state, c.out, c.in); err != nil {
				t.Fatalf("at %d: %v", c.out, err)
			}
			if r.m.cutBudget <= 0 {
				t.Fatalf("at %d: a restored model has no cut-off budget", c.out)
			}
			if starve {
				r.m.cutBudget = 1
			}
			got, err := io.ReadAll(r.Guarded())
			cuts := r.m.cutOffs
			r.Close()
			switch {
			case starve && cuts > 0:
				if !errors.Is(err, errs.ErrCorrupt) {
					t.Fatalf("from %d with a budget of 1: %v, want ErrCorrupt", c.out, err)
				}
			case err != nil || !bytes.Equal(got, want[c.out:]):
				t.Fatalf("from %d (budget starved %v): %v, bytes equal %v", c.out, starve, err, bytes.Equal(got, want[c.out:]))
			}
			restoredCut = restoredCut || !starve && cuts > 0
		}
	}
	if !restoredCut {
		t.Fatal("no restored model went through a cut-off")
	}
}

// TestCheckpointTampered: states changed in their scalars, bounds or
// arena are refused (ErrCorrupt) or, where the heap stays consistent,
// decode to an error or other bytes, never a panic or a hang; the
// model's order, memory or restoration method differing from the
// stream's is refused; a model above maxMem is ErrLimit.
func TestCheckpointTampered(t *testing.T) {
	e := ppmdEntries(t, zipTestdata("ppmd-cutoff.zip"))[0]
	z, err := NewReaderZip(bytes.NewReader(e.Packed), e.Size, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, cps := decodeTaking(t, z, e.Size/3, 3)
	z.Close()
	c := cps[1]
	resume := func(st []byte, maxMem int64) error {
		var r ReaderZip
		defer r.Close()
		if err := r.ResetAt(bytes.NewReader(e.Packed[c.in:]), zipHdr(e), e.Size, maxMem, st, c.out, c.in); err != nil {
			return err
		}
		_, err := io.Copy(io.Discard, r.Guarded())
		return err
	}
	if err := resume(c.state, 0); err != nil {
		t.Fatal(err)
	}
	if err := resume(c.state, 1<<19); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("under a 512 KiB limit: %v", err)
	}
	off := func(field int) int { return 2 + 4*field }
	for _, tc := range []struct {
		name string
		at   int
		v    uint32
	}{
		{"minContext", off(3), 5}, {"maxContext", off(4), 1 << 30}, {"foundState", off(5), 1 << 30},
		{"maxOrder", off(9), 3}, {"restore", off(11), 0}, {"size", off(13), 2 << 20},
		{"loUnit", off(17), 12}, {"hiUnit", off(18), 1<<20 + 100}, {"text", off(19), 1 << 30},
		{"unitsStart", off(20), 1}, {"freeList0", off(21), 12345}, {"stamps0", off(21 + numIndexes), 99},
	} {
		st := bytes.Clone(c.state)
		st[tc.at], st[tc.at+1], st[tc.at+2], st[tc.at+3] = byte(tc.v), byte(tc.v>>8), byte(tc.v>>16), byte(tc.v>>24)
		if err := resume(st, 0); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s changed: %v", tc.name, err)
		}
	}
	if err := resume(c.state[:len(c.state)-1], 0); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("cut state: %v", err)
	}
	// Random changes to the arena: an error or a decode, never a panic
	// (the test would die) or a hang (its timeout).
	rng := rand.New(rand.NewPCG(7, 7))
	tries := 300
	if testing.Short() {
		tries = 40
	}
	for k := 0; k < tries; k++ {
		st := bytes.Clone(c.state)
		for j := 0; j < 1+rng.IntN(8); j++ {
			i := cpScalars + rng.IntN(len(st)-cpScalars)
			st[i] = byte(rng.Uint32())
		}
		resume(st, 0)
	}
}

func zipHdr(e zipEntry) uint16 { return uint16(e.Packed[0]) | uint16(e.Packed[1])<<8 }

// TestCheckpointRestoreEverywhere: states taken every 2 KiB along
// streams whose arena fills (ZIP cut-off at order 16, 7z restart) all
// pass the heap checks and decode the next 16 KiB right: the checks
// must not refuse a real model (one did when a free block spanned an
// empty LoUnit..HiUnit gap).
func TestCheckpointRestoreEverywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	type stream struct {
		name   string
		packed []byte
		size   int64
		open   func(io.Reader) (cpDecoder, error)
		resume func(c cpTaken) (io.Reader, func(), error)
	}
	var streams []stream
	for _, e := range ppmdEntries(t, filepath.Join(testutil.ModuleRoot(), "testdata", "seek", "ppmd-cut.zip")) {
		if e.Size < 100<<10 {
			continue
		}
		streams = append(streams, stream{"ppmd-cut.zip/" + e.Name, e.Packed, e.Size,
			func(r io.Reader) (cpDecoder, error) { return NewReaderZip(r, e.Size, 0) },
			func(c cpTaken) (io.Reader, func(), error) {
				r := new(ReaderZip)
				err := r.ResetAt(bytes.NewReader(e.Packed[c.in:]), zipHdr(e), e.Size, 0, c.state, c.out, c.in)
				return r.Guarded(), func() { r.Close() }, err
			}})
	}
	for _, f := range loadFacts(t, "7z") {
		if !strings.HasPrefix(f.Archive, "big") && !strings.HasPrefix(f.Archive, "mixed-o4") {
			continue
		}
		packed := packed7z(t, f.Archive)
		streams = append(streams, stream{f.Archive, packed, f.Size,
			func(r io.Reader) (cpDecoder, error) { return NewReader7z(r, f.Order, f.Mem, f.Size) },
			func(c cpTaken) (io.Reader, func(), error) {
				r := new(Reader7z)
				err := r.ResetAt7z(bytes.NewReader(packed[c.in:]), f.Order, f.Mem, f.Size, c.state, c.out, c.in)
				return r.Guarded(), func() { r.Close() }, err
			}})
	}
	if len(streams) < 3 {
		t.Fatalf("%d streams", len(streams))
	}
	for _, s := range streams {
		z, err := s.open(bytes.NewReader(s.packed))
		if err != nil {
			t.Fatal(err)
		}
		want, cps := decodeTaking(t, z, 2048, 5)
		if len(cps) < 10 {
			t.Fatalf("%s: %d checkpoints", s.name, len(cps))
		}
		for _, c := range cps {
			r, done, err := s.resume(c)
			if err != nil {
				t.Fatalf("%s at %d: %v", s.name, c.out, err)
			}
			got := make([]byte, min(16<<10, int64(len(want))-c.out))
			if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, want[c.out:c.out+int64(len(got))]) {
				t.Fatalf("%s from %d: %v", s.name, c.out, err)
			}
			done()
		}
	}
}
