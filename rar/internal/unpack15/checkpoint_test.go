package unpack15

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

type testCP struct {
	entry int
	off   int64
	bits  int64
	state []byte
}

// decodeWithCheckpoints decodes ents as one stream (solid when they say
// so), taking a checkpoint every `every` bytes of each entry's output
// (math.MaxInt64: none).
func decodeWithCheckpoints(t *testing.T, ents []rar4Entry, every int64) ([][]byte, []testCP) {
	t.Helper()
	d := NewDecoder()
	defer d.Close()
	var outs [][]byte
	var cps []testCP
	for i, e := range ents {
		if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
			t.Fatal(err)
		}
		d.OnCheckpoint(every, func(d *Decoder) int64 {
			st := d.Checkpoint(nil)
			if d.CheckpointSize() != len(st) {
				t.Fatal("CheckpointSize disagrees")
			}
			cps = append(cps, testCP{i, d.EntryOffset(), d.InputBits(), st})
			return (d.EntryOffset()/every + 1) * every
		})
		got, err := io.ReadAll(d)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		outs = append(outs, got)
	}
	return outs, cps
}

// resumeFrom decodes entry e from checkpoint cp, at most max bytes.
func resumeFrom(d *Decoder, e rar4Entry, cp testCP, max int64) ([]byte, error) {
	at := cp.bits >> 3
	if at > int64(len(e.Packed)) {
		return nil, errs.Corrupt("past the data")
	}
	if err := d.ResetAt(bytes.NewReader(e.Packed[at:]), e.Dict, e.Size, cp.state); err != nil {
		return nil, err
	}
	if d.EntryOffset() != cp.off {
		return nil, errs.Corrupt("offset %d, not %d", d.EntryOffset(), cp.off)
	}
	return io.ReadAll(io.LimitReader(d, max))
}

// TestCheckpointResume resumes the testdata streams from checkpoints
// every 1000 bytes (at most one match past the interval: RAR 1.5 has no
// filters to wait for) and every 13 bytes of the first 4 KiB, and compares the rest of
// the entry with the sequential decode.
func TestCheckpointResume(t *testing.T) {
	ents := streams(t)
	for _, every := range []int64{1000, 13} {
		outs, cps := decodeWithCheckpoints(t, ents, every)
		if len(cps) == 0 {
			t.Fatal("no checkpoints")
		}
		d := NewDecoder()
		n := 0
		for _, cp := range cps {
			if every == 13 && cp.off > 4096 {
				continue
			}
			if every > 300 && cp.off%every > 300 {
				// A pass stops at the interval or one match past it.
				t.Fatalf("checkpoint at %d, interval %d", cp.off, every)
			}
			got, err := resumeFrom(d, ents[cp.entry], cp, math.MaxInt64)
			if err != nil {
				t.Fatalf("entry %d at %d: %v", cp.entry, cp.off, err)
			}
			if !bytes.Equal(got, outs[cp.entry][cp.off:]) {
				t.Fatalf("entry %d from %d: output differs", cp.entry, cp.off)
			}
			n++
		}
		d.Close()
		t.Logf("every %d: %d resumed", every, n)
	}
}

// TestCheckpointTampered: a checkpoint cut, grown or with a field out
// of range is ErrCorrupt from ResetAt, never a panic.
func TestCheckpointTampered(t *testing.T) {
	ents := streams(t)
	_, cps := decodeWithCheckpoints(t, ents, 5000)
	var cp testCP
	for _, c := range cps {
		if c.off > 0 {
			cp = c
			break
		}
	}
	e := ents[cp.entry]
	le := binary.LittleEndian
	set32 := func(at int, v uint32) func([]byte) []byte {
		return func(s []byte) []byte { le.PutUint32(s[at:], v); return s }
	}
	set64 := func(at int, v uint64) func([]byte) []byte {
		return func(s []byte) []byte { le.PutUint64(s[at:], v); return s }
	}
	const (
		oWin   = 4
		oDict  = 8
		oPos   = 16
		oOff   = 24
		oFlags = 32
		oWords = 33 + 2*4*256 + 3*256
		oBuf60 = oWords + 6*4
		oDist  = oWords + 10*4
		oPtr   = oDist + 16
		oLastD = oPtr + 4
		oLastL = oLastD + 4
		oCnt   = oLastL + 12
		oBits  = oCnt + 4
	)
	cases := map[string]func([]byte) []byte{
		"cut":         func(s []byte) []byte { return s[:len(s)-1] },
		"grown":       func(s []byte) []byte { return append(s, 0) },
		"short":       func(s []byte) []byte { return s[:cpHeader-1] },
		"magic":       set32(0, 1),
		"window 3":    set32(oWin, 3<<12),
		"window huge": set32(oWin, 1<<30),
		"dict 0":      set64(oDict, 0),
		"pos huge":    set64(oPos, math.MaxUint64),
		"offset>pos":  set64(oOff, 1<<50),
		"offset>size": set64(oOff, uint64(e.Size)),
		"flags":       func(s []byte) []byte { s[oFlags] = 4; return s },
		"buf60":       set32(oBuf60, 2),
		"distance":    set32(oDist+8, 1<<30),
		"ring":        set32(oPtr, 4),
		"last dist":   set32(oLastD, 1<<30),
		"last length": set32(oLastL, 1<<20),
		"flag count":  set32(oCnt, 99),
		"bits huge":   set64(oBits, math.MaxUint64),
	}
	d := NewDecoder()
	defer d.Close()
	for name, mut := range cases {
		bad := testCP{cp.entry, cp.off, cp.bits, mut(bytes.Clone(cp.state))}
		if _, err := resumeFrom(d, e, bad, math.MaxInt64); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	got, err := resumeFrom(d, e, cp, math.MaxInt64)
	if err != nil || int64(len(got)) != e.Size-cp.off {
		t.Fatalf("good checkpoint: %d bytes, %v", len(got), err)
	}
}

// TestCheckpointCorpus resumes every v15 stream of the shared corpus
// from checkpoints every 4 KiB and compares 64 KiB after each.
func TestCheckpointCorpus(t *testing.T) {
	names, chains := rar4test.CorpusChains(t, func(v byte) bool { return v <= 15 })
	var n int
	for k, ents := range chains {
		outs, cps := decodeWithCheckpoints(t, ents, 4096)
		d := NewDecoder()
		for _, cp := range cps {
			got, err := resumeFrom(d, ents[cp.entry], cp, 64<<10)
			want := outs[cp.entry][cp.off:]
			if err != nil || !bytes.Equal(got, want[:min(len(want), 64<<10)]) {
				t.Fatalf("%s: %s from %d: %v", names[k], ents[cp.entry].Name, cp.off, err)
			}
			n++
		}
		d.Close()
	}
	t.Logf("%d streams, %d checkpoints resumed", len(chains), n)
}

// FuzzCheckpoint15 resumes from arbitrary checkpoint states over
// arbitrary packed data (seeded with real checkpoints of the testdata
// streams and the packed data after them): ResetAt refuses a state with
// ErrCorrupt or the decoder runs, never panicking or hanging; a state it
// accepts writes back as the same bytes.
func FuzzCheckpoint15(f *testing.F) {
	d := NewDecoder()
	for _, e := range streams(f) {
		if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, false); err != nil {
			f.Fatal(err)
		}
		d.OnCheckpoint(0, func(d *Decoder) int64 {
			at := d.InputBits() >> 3
			f.Add(d.Checkpoint(nil), e.Packed[at:min(int64(len(e.Packed)), at+4096)], byte(d.EntryOffset()))
			if d.EntryOffset() > 8<<10 {
				return math.MaxInt64
			}
			return d.EntryOffset() + 2500
		})
		if _, err := io.Copy(io.Discard, d); err != nil {
			f.Fatal(err)
		}
	}
	sizes := []int64{1000, 70000, 1 << 20, 1 << 40}
	dicts := []int64{64 << 10, 1 << 20, 4 << 20, 0}
	f.Fuzz(func(t *testing.T, state, packed []byte, sel byte) {
		// A window of at most 4 MiB and 1 MiB of output.
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 32<<20)()
		size, dict := sizes[sel&3], dicts[sel>>2&3]
		if err := d.ResetAt(bytes.NewReader(packed), dict, size, state); err != nil {
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("ResetAt: %v", err)
			}
			return
		}
		if got := d.Checkpoint(nil); !bytes.Equal(got, state) {
			t.Fatalf("restored state writes %d other bytes (%d)", len(got), len(state))
		}
		_, err := io.Copy(io.Discard, io.LimitReader(d, 1<<20))
		if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
			t.Fatalf("unexpected error class: %v", err)
		}
	})
}
