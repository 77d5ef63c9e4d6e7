package rar4test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// CPDecoder is a RAR 1.5/2.0 decoder that takes checkpoints (unpack15,
// unpack20), D its own pointer type: the checkpoint tests below are
// written once for both.
type CPDecoder[D any] interface {
	Decoder
	ResetAt(src io.Reader, dictSize, unpackedSize int64, state []byte) error
	OnCheckpoint(next int64, fn func(D) int64)
	Checkpoint(dst []byte) []byte
	CheckpointSize() int
	EntryOffset() int64
	InputBits() int64
}

// CP is a checkpoint taken in a test: its entry, offset, bit position
// and state.
type CP = testutil.EntryCP

// DecodeWithCheckpoints decodes ents with d as one stream (solid when
// they say so), taking a checkpoint every `every` bytes of each entry's
// output (math.MaxInt64: none).
func DecodeWithCheckpoints[D CPDecoder[D]](t testutil.TB, d D, ents []Entry, every int64) ([][]byte, []CP) {
	t.Helper()
	return testutil.DecodeEntries(t, d, len(ents), every, func(i int) (bool, error) {
		e := ents[i]
		return true, d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid)
	})
}

// ResumeFrom decodes entry e with d from checkpoint cp, at most max
// bytes.
func ResumeFrom[D CPDecoder[D]](d D, e Entry, cp CP, max int64) ([]byte, error) {
	at := cp.Bits >> 3
	if at > int64(len(e.Packed)) {
		return nil, errs.Corrupt("past the data")
	}
	if err := d.ResetAt(bytes.NewReader(e.Packed[at:]), e.Dict, e.Size, cp.State); err != nil {
		return nil, err
	}
	if d.EntryOffset() != cp.Off {
		return nil, errs.Corrupt("offset %d, not %d", d.EntryOffset(), cp.Off)
	}
	return io.ReadAll(io.LimitReader(d, max))
}

// CheckResume resumes ents from checkpoints every 1000 bytes (at most
// one match past the interval: RAR 1.5 and 2.0 have no filters to wait
// for) and every 13 bytes of the first 4 KiB, and compares the rest of
// the entry with the sequential decode.
func CheckResume[D CPDecoder[D]](t testutil.TB, newDecoder func() D, ents []Entry) {
	for _, every := range []int64{1000, 13} {
		d := newDecoder()
		outs, cps := DecodeWithCheckpoints(t, d, ents, every)
		d.Close()
		if len(cps) == 0 {
			t.Fatal("no checkpoints")
		}
		d = newDecoder()
		n := 0
		for _, cp := range cps {
			if every == 13 && cp.Off > 4096 {
				continue
			}
			if every > 300 && cp.Off%every > 300 {
				t.Fatalf("checkpoint at %d, interval %d", cp.Off, every)
			}
			got, err := ResumeFrom(d, ents[cp.Entry], cp, math.MaxInt64)
			if err != nil {
				t.Fatalf("entry %d at %d: %v", cp.Entry, cp.Off, err)
			}
			if !bytes.Equal(got, outs[cp.Entry][cp.Off:]) {
				t.Fatalf("entry %d from %d: output differs", cp.Entry, cp.Off)
			}
			n++
		}
		d.Close()
		t.Logf("every %d: %d resumed", every, n)
	}
}

// Set32 and Set64 are tampering cases that write v at offset at.
func Set32(at int, v uint32) func([]byte) []byte {
	return func(s []byte) []byte { binary.LittleEndian.PutUint32(s[at:], v); return s }
}

func Set64(at int, v uint64) func([]byte) []byte {
	return func(s []byte) []byte { binary.LittleEndian.PutUint64(s[at:], v); return s }
}

// CheckTampered takes a checkpoint past the start of ents, checks that
// every case of more (the decoder's own fields) and of the header all
// RAR 1.5/2.0 states start with (rarbits.CPHeader) and their length is
// ErrCorrupt from ResetAt, never a panic, and that the untouched one
// still resumes. fixed is the decoder's fixed part.
func CheckTampered[D CPDecoder[D]](t testutil.TB, newDecoder func() D, ents []Entry, fixed int, more map[string]func([]byte) []byte) {
	d := newDecoder()
	_, cps := DecodeWithCheckpoints(t, d, ents, 5000)
	d.Close()
	var cp CP
	for _, c := range cps {
		if c.Off > 0 {
			cp = c
			break
		}
	}
	e := ents[cp.Entry]
	const oWin, oDict, oPos, oOff = 4, 8, 16, 24
	cases := map[string]func([]byte) []byte{
		"cut":         func(s []byte) []byte { return s[:len(s)-1] },
		"grown":       func(s []byte) []byte { return append(s, 0) },
		"short":       func(s []byte) []byte { return s[:fixed-1] },
		"magic":       Set32(0, 1),
		"window 3":    Set32(oWin, 3<<12),
		"window huge": Set32(oWin, 1<<30),
		"dict 0":      Set64(oDict, 0),
		"pos huge":    Set64(oPos, math.MaxUint64),
		"offset>pos":  Set64(oOff, 1<<50),
		"offset>size": Set64(oOff, uint64(e.Size)),
		"bits huge":   Set64(fixed-8, math.MaxUint64),
	}
	for k, f := range more {
		cases[k] = f
	}
	d = newDecoder()
	defer d.Close()
	for name, mut := range cases {
		bad := cp.WithState(mut(bytes.Clone(cp.State)))
		if _, err := ResumeFrom(d, e, bad, math.MaxInt64); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	got, err := ResumeFrom(d, e, cp, math.MaxInt64)
	if err != nil || int64(len(got)) != e.Size-cp.Off {
		t.Fatalf("good checkpoint: %d bytes, %v", len(got), err)
	}
}

// CheckCorpus resumes every stream of the shared corpus of the versions
// ours keeps from checkpoints every 4 KiB and compares 64 KiB after
// each; each checkpoint is also handed to seen.
func CheckCorpus[D CPDecoder[D]](t testutil.TB, newDecoder func() D, ours func(v byte) bool, seen func(CP)) {
	names, chains := CorpusChains(t, ours)
	var n int
	for k, ents := range chains {
		d := newDecoder()
		outs, cps := DecodeWithCheckpoints(t, d, ents, 4096)
		d.Close()
		d = newDecoder()
		for _, cp := range cps {
			seen(cp)
			got, err := ResumeFrom(d, ents[cp.Entry], cp, 64<<10)
			want := outs[cp.Entry][cp.Off:]
			if err != nil || !bytes.Equal(got, want[:min(len(want), 64<<10)]) {
				t.Fatalf("%s: %s from %d: %v", names[k], ents[cp.Entry].Name, cp.Off, err)
			}
			n++
		}
		d.Close()
	}
	t.Logf("%d streams, %d checkpoints resumed", len(chains), n)
}

// FuzzCheckpoint resumes d from arbitrary checkpoint states over
// arbitrary packed data (seeded with real checkpoints of seeds and the
// packed data after them): ResetAt refuses a state with ErrCorrupt or
// the decoder runs, never panicking or hanging; a state it accepts
// writes back as the same bytes. It adds the seeds to f and returns the
// body for the caller's f.Fuzz (see Fuzz).
func FuzzCheckpoint[D CPDecoder[D]](f testutil.F, d D, seeds []Entry) func(t testutil.TB, state, packed []byte, sel byte) {
	for _, e := range seeds {
		if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, false); err != nil {
			f.Fatal(err)
		}
		d.OnCheckpoint(0, func(d D) int64 {
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
	return func(t testutil.TB, state, packed []byte, sel byte) {
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
	}
}
