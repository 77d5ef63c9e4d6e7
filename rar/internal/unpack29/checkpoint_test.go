package unpack29

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

type testCP = testutil.EntryCP

// cpEntries reads the v29 entries of testdata/rar29/NAME or
// testdata/seek/NAME.
func cpEntries(t testutil.TB, name string) []rar4Entry {
	t.Helper()
	root := testutil.ModuleRoot()
	data, err := os.ReadFile(filepath.Join(root, "testdata", "rar29", name))
	if errors.Is(err, os.ErrNotExist) {
		data, err = os.ReadFile(filepath.Join(root, "testdata", "seek", name))
	}
	if err != nil {
		t.Fatal(err)
	}
	ents, err := parseRAR4(data)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// decodeWithCheckpoints decodes ents as one stream (solid when they say
// so), taking a checkpoint every `every` bytes of each entry's output.
func decodeWithCheckpoints(t *testing.T, ents []rar4Entry, every int64) ([][]byte, []testCP) {
	t.Helper()
	d := NewDecoder()
	defer d.Close()
	return testutil.DecodeEntries(t, d, len(ents), every, func(i int) (bool, error) {
		e := ents[i]
		if e.Dir || e.Method == 0x30 {
			return false, nil
		}
		return true, d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid)
	})
}

// resumeFrom decodes entry e from checkpoint cp, at most max bytes.
func resumeFrom(d *Decoder, e rar4Entry, cp testCP, max int64) ([]byte, error) {
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

// TestCheckpointResume resumes from every checkpoint of several streams
// (solid, E8, delta, audio and RGB filters, several dictionaries) and
// compares the next 128 KiB (the rest of the entry from the last one)
// with the sequential decode. Without filters the checkpoints land on
// their interval; with filters, at the first block end after it.
func TestCheckpointResume(t *testing.T) {
	for _, name := range []string{"solid.rar", "big.rar", "e8.rar", "delta.rar", "audio.rar", "rgb.rar", "m3.rar", "m5.rar", "solid4-big.rar"} {
		t.Run(name, func(t *testing.T) {
			ents := cpEntries(t, name)
			every := int64(3000)
			if name == "big.rar" {
				every = 300000 // 5 MiB with a 4 MiB window: keep the states few
			}
			outs, cps := decodeWithCheckpoints(t, ents, every)
			exact, queued := 0, 0
			d := NewDecoder()
			defer d.Close()
			for k, cp := range cps {
				if cp.Off%every == 0 {
					exact++
				}
				n := int64(128 << 10)
				if k == len(cps)-1 {
					n = math.MaxInt64
				}
				got, err := resumeFrom(d, ents[cp.Entry], cp, n)
				if err != nil {
					t.Fatalf("entry %d at %d: %v", cp.Entry, cp.Off, err)
				}
				if len(d.flt.queue) > 0 {
					queued++
				}
				want := outs[cp.Entry][cp.Off:]
				if !bytes.Equal(got, want[:min(int64(len(want)), n)]) {
					t.Fatalf("entry %d from %d: output differs", cp.Entry, cp.Off)
				}
			}
			var runs int
			for _, r := range filterRuns(t, ents) {
				runs += r
			}
			switch {
			case runs == 0 && exact == 0:
				t.Fatalf("no checkpoint on its interval of %d", len(cps))
			case runs > 4 && queued == 0:
				// Streams with many filter blocks queue them ahead.
				t.Fatalf("%d filters, no checkpoint with one queued (%d checkpoints)", runs, len(cps))
			}
			t.Logf("%d checkpoints (%d on the interval, %d with filters queued), %d filters", len(cps), exact, queued, runs)
		})
	}
}

// filterRuns decodes ents and returns the filters applied, by kind.
func filterRuns(t *testing.T, ents []rar4Entry) [filterAudio + 1]int {
	d := NewDecoder()
	defer d.Close()
	for _, e := range ents {
		if e.Dir || e.Method == 0x30 {
			continue
		}
		if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, d); err != nil {
			t.Fatal(err)
		}
	}
	return d.flt.runs
}

// TestCheckpointFilters: with filters queued (delta.rar, big.rar) some
// checkpoints are taken while output is held back by a filter whose
// block is not complete (Wr < Pos), and resuming from them gives the
// same bytes.
func TestCheckpointFilters(t *testing.T) {
	for _, name := range []string{"delta.rar", "big.rar"} {
		ents := cpEntries(t, name)
		outs, _ := decodeWithCheckpoints(t, ents, math.MaxInt64)
		d := NewDecoder()
		var held []testCP
		for i, e := range ents {
			if e.Dir || e.Method == 0x30 {
				continue
			}
			if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
				t.Fatal(err)
			}
			d.OnCheckpoint(1, func(d *Decoder) int64 {
				if d.Wr < d.Pos && len(held) < 20 {
					held = append(held, testutil.TakeEntryCP(i, d))
				}
				return d.EntryOffset() + 40000
			})
			if _, err := io.Copy(io.Discard, d); err != nil {
				t.Fatal(err)
			}
		}
		d.Close()
		if len(held) == 0 {
			t.Fatalf("%s: no checkpoint with output held back", name)
		}
		d = NewDecoder()
		for _, cp := range held {
			got, err := resumeFrom(d, ents[cp.Entry], cp, 64<<10)
			want := outs[cp.Entry][cp.Off:]
			if err != nil || !bytes.Equal(got, want[:min(len(want), 64<<10)]) {
				t.Fatalf("%s: entry %d from %d: %v", name, cp.Entry, cp.Off, err)
			}
		}
		d.Close()
	}
}

// TestCheckpointPPMd: streams with PPMd blocks take checkpoints inside
// them and in the LZ blocks after one (the model kept), and resuming
// from each gives the sequential bytes to the end of the entry.
func TestCheckpointPPMd(t *testing.T) {
	var inPPM, afterPPM int
	keep := 40 // each resume restores a model of 15 or 25 MiB
	if testing.Short() {
		keep = 8
	}
	for _, name := range []string{"ppmd.rar", "ppmd_solid.rar", "solid4-ppm.rar"} {
		ents := cpEntries(t, name)
		outs, _ := decodeWithCheckpoints(t, ents, math.MaxInt64)
		var cps []testCP
		d := NewDecoder()
		for i, e := range ents {
			if e.Dir || e.Method == 0x30 {
				continue
			}
			if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
				t.Fatal(err)
			}
			d.OnCheckpoint(0, func(d *Decoder) int64 {
				switch {
				case d.ppm.active:
					inPPM++
				case d.ppm.used:
					afterPPM++
				}
				if d.ppm.used && len(cps) < keep {
					cps = append(cps, testutil.TakeEntryCP(i, d))
				}
				return d.EntryOffset() + 1500
			})
			if _, err := io.Copy(io.Discard, d); err != nil {
				t.Fatal(err)
			}
		}
		d.Close()
		if len(cps) == 0 {
			t.Fatalf("%s: no checkpoint with a PPMd model", name)
		}
		r := NewDecoder()
		for _, cp := range cps {
			want := outs[cp.Entry][cp.Off:]
			n := min(len(want), 64<<10)
			got, err := resumeFrom(r, ents[cp.Entry], cp, int64(n))
			if err != nil || !bytes.Equal(got, want[:n]) {
				t.Fatalf("%s: entry %d from %d: %v", name, cp.Entry, cp.Off, err)
			}
		}
		r.Close()
	}
	if inPPM == 0 || afterPPM == 0 {
		t.Fatalf("%d checkpoints in PPMd blocks, %d in LZ blocks after one", inPPM, afterPPM)
	}
	t.Logf("%d checkpoints in PPMd blocks, %d in LZ blocks after one", inPPM, afterPPM)
}

// TestCheckpointTampered: a checkpoint cut, grown or with a field out
// of range is ErrCorrupt from ResetAt, never a panic or wrong window.
func TestCheckpointTampered(t *testing.T) {
	ents := cpEntries(t, "big.rar")
	_, cps := decodeWithCheckpoints(t, ents, 1<<20)
	le := binary.LittleEndian
	var cp testCP
	var nq, ndefs int
	for _, c := range cps {
		ndefs = int(le.Uint32(c.State[cpHeader-21:]))
		nq = int(le.Uint32(c.State[cpHeader-17:]))
		if c.Off > 20000 && nq >= 2 && ndefs > 0 {
			cp = c
			break
		}
	}
	if cp.State == nil {
		t.Fatal("no checkpoint past 20000 with two filters queued")
	}
	oQ := cpHeader + ndefs*cpDef // the first queued filter
	e := ents[cp.Entry]
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
		oWr    = 24
		oOff   = 32
		oFlags = 40
		oDist  = 41
		oLast  = oDist + 16
		oLow   = oLast + 4
		oRep   = oLow + 4
		oTable = oRep + 4
		oFLast = oTable + tableSize
		oNDefs = oFLast + 4
		oNQ    = oNDefs + 4
		oBits  = oNQ + 4
	)
	cases := map[string]func([]byte) []byte{
		"cut":          func(s []byte) []byte { return s[:len(s)-1] },
		"grown":        func(s []byte) []byte { return append(s, 0) },
		"short":        func(s []byte) []byte { return s[:cpHeader-1] },
		"magic":        set32(0, 1),
		"window 3":     set32(oWin, 3<<12),
		"window huge":  set32(oWin, 1<<30),
		"window small": set32(oWin, 1<<10),
		"dict 0":       set64(oDict, 0),
		"dict huge":    set64(oDict, 1<<40),
		"pos huge":     set64(oPos, math.MaxUint64),
		"offset>pos":   set64(oOff, 1<<50),
		"written>pos":  set64(oWr, uint64(1<<50)),
		"bits huge":    set64(oBits, math.MaxUint64),
		"queue count":  set32(oNQ, maxPendingFilter+1),
		"offset>size":  set64(oOff, uint64(e.Size)),
		"flags":        func(s []byte) []byte { s[oFlags] = 4; return s },
		"no tables":    func(s []byte) []byte { s[oFlags] = 0; return s },
		"distance":     set32(oDist+4, 1<<30),
		"last length":  set32(oLast, 1000),
		"low distance": set32(oLow, 16),
		"low repeat":   set32(oRep, 99),
		"code length":  func(s []byte) []byte { s[oTable+3] = 16; return s },
		"oversubscribe": func(s []byte) []byte {
			clear(s[oTable : oTable+mainSyms])
			s[oTable] = 1
			s[oTable+1] = 1
			s[oTable+2] = 1
			return s
		},
		"filter last":   set32(oFLast, 5000),
		"filter count":  set32(oNDefs, maxFilterDefs+1),
		"filter count1": set32(oNDefs, uint32(ndefs+1)),
		"filter kind":   func(s []byte) []byte { s[cpHeader] = 7; return s },
		"queue count1":  set32(oNQ, uint32(nq-1)),
		"queue early":   set64(oQ, 0),
		"queue long":    set32(oQ+8, vmMemSize+1),
		"queue kind 0":  func(s []byte) []byte { s[oQ+12] = 0; return s },
		"queue kind 7":  func(s []byte) []byte { s[oQ+12] = 7; return s },
		"queue order": func(s []byte) []byte {
			copy(s[oQ+cpQueued:], s[oQ:oQ+8])
			le.PutUint64(s[oQ:], le.Uint64(s[oQ:])+1)
			return s
		},
		"queue overlap": func(s []byte) []byte {
			le.PutUint32(s[oQ+8:], le.Uint32(s[oQ+8:])+uint32(le.Uint64(s[oQ+cpQueued:])-le.Uint64(s[oQ:])))
			return s
		},
	}
	d := NewDecoder()
	defer d.Close()
	for name, mut := range cases {
		bad := cp.WithState(mut(bytes.Clone(cp.State)))
		if _, err := resumeFrom(d, e, bad, math.MaxInt64); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The untouched one still works after all that.
	got, err := resumeFrom(d, e, cp, math.MaxInt64)
	if err != nil || int64(len(got)) != e.Size-cp.Off {
		t.Fatalf("good checkpoint: %d bytes, %v", len(got), err)
	}
}

// TestCheckpointAllocs: a warm decoder resumed from a checkpoint
// allocates nothing per resume (its window and buffers come from the
// pool).
func TestCheckpointAllocs(t *testing.T) {
	ents := cpEntries(t, "big.rar")
	_, cps := decodeWithCheckpoints(t, ents, 20000)
	cp := cps[len(cps)-1]
	e := ents[cp.Entry]
	d := NewDecoder()
	defer d.Close()
	src := bytes.NewReader(nil)
	run := func() {
		src.Reset(e.Packed[cp.Bits>>3:])
		if err := d.ResetAt(src, e.Dict, e.Size, cp.State); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, d); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if n := testing.AllocsPerRun(20, run); n > 0 {
		t.Fatalf("%.1f allocations per resume", n)
	}
}

// TestCheckpointDense takes a checkpoint every 11 bytes of the first
// 8 KiB of each entry and resumes from each: every LZ field must come
// back wherever the decoder stops. (rar's encoder never sends the
// low-distance repeat code in these streams, so lowDistRep stays 0.)
func TestCheckpointDense(t *testing.T) {
	for _, name := range []string{"m3.rar", "delta.rar", "solid.rar"} {
		ents := cpEntries(t, name)
		outs, _ := decodeWithCheckpoints(t, ents, math.MaxInt64)
		d := NewDecoder()
		for i, e := range ents {
			if e.Dir || e.Method == 0x30 || e.Size == 0 {
				continue
			}
			if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
				t.Fatal(err)
			}
			var cps []testCP
			d.OnCheckpoint(1, func(d *Decoder) int64 {
				cps = append(cps, testutil.TakeEntryCP(i, d))
				if d.EntryOffset() > 8<<10 {
					return math.MaxInt64
				}
				return d.EntryOffset() + 11
			})
			if _, err := io.Copy(io.Discard, d); err != nil {
				t.Fatal(err)
			}
			r := NewDecoder()
			for _, cp := range cps {
				got, err := resumeFrom(r, e, cp, 4096)
				want := outs[i][cp.Off:]
				if err != nil || !bytes.Equal(got, want[:min(len(want), 4096)]) {
					t.Fatalf("%s: entry %d from %d: %v", name, i, cp.Off, err)
				}
			}
			r.Close()
		}
		d.Close()
	}
}

// TestCheckpointCorpus resumes every v29 stream of the shared corpus
// (up to 64 MiB) from checkpoints every 16 KiB and compares 8 KiB after
// each, resuming as each is taken so only one state is held.
func TestCheckpointCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes the corpus's RAR4 streams")
	}
	names, chains := rar4test.CorpusChains(t, func(v byte) bool { return v == 29 })
	var n, queued int
	r := NewDecoder()
	defer r.Close()
	for k, ents := range chains {
		var size int64
		for _, e := range ents {
			size += e.Size
		}
		if size > 64<<20 {
			continue // the benchmark covers big streams
		}
		outs, _ := decodeWithCheckpoints(t, ents, math.MaxInt64)
		d := NewDecoder()
		for i, e := range ents {
			if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
				t.Fatal(err)
			}
			d.OnCheckpoint(16<<10, func(d *Decoder) int64 {
				cp := testutil.TakeEntryCP(i, d)
				got, err := resumeFrom(r, e, cp, 8<<10)
				if len(r.flt.queue) > 0 {
					queued++
				}
				want := outs[i][cp.Off:]
				if err != nil || !bytes.Equal(got, want[:min(len(want), 8<<10)]) {
					t.Fatalf("%s: %s from %d: %v", names[k], e.Name, cp.Off, err)
				}
				n++
				return (cp.Off>>14 + 1) << 14
			})
			if _, err := io.Copy(io.Discard, d); err != nil {
				t.Fatal(err)
			}
		}
		d.Close()
	}
	t.Logf("%d streams, %d checkpoints resumed, %d with filters queued", len(chains), n, queued)
}

// TestCheckpointTamperedPPMd: a checkpoint with a PPMd model whose PPMd
// fields or model state are altered is ErrCorrupt from ResetAt (a model
// larger than MaxMemory ErrLimit, before its arena is allocated), never
// a panic; decoding from a model whose statistics were altered but
// still pass the checks gives an error or bytes, never a panic.
func TestCheckpointTamperedPPMd(t *testing.T) {
	ents := cpEntries(t, "solid4-ppm.rar")
	var cp testCP
	for i, e := range ents {
		if cp.State != nil {
			break
		}
		d := NewDecoder()
		if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, false); err != nil {
			t.Fatal(err)
		}
		d.OnCheckpoint(20000, func(d *Decoder) int64 {
			if d.ppm.active && cp.State == nil {
				cp = testutil.TakeEntryCP(i, d)
			}
			return math.MaxInt64
		})
		io.Copy(io.Discard, d)
		d.Close()
	}
	if cp.State == nil {
		t.Fatal("no checkpoint in a PPMd block")
	}
	e := ents[cp.Entry]
	le := binary.LittleEndian
	ndefs := int(le.Uint32(cp.State[cpHeader-21:]))
	nq := int(le.Uint32(cp.State[cpHeader-17:]))
	oM := cpHeader + ndefs*cpDef + nq*cpQueued // the model's state
	const oFlags, oEsc, oLen = 40, cpHeader - 5, cpHeader - 4
	cases := map[string]func([]byte) []byte{
		"active, no model": func(s []byte) []byte {
			s[oFlags] &^= 4
			s[oEsc] = 2
			n := int(le.Uint32(s[oLen:]))
			le.PutUint32(s[oLen:], 0)
			return append(s[:oM], s[oM+n:]...)
		},
		"escape, no model": func(s []byte) []byte {
			s[oFlags] &^= 12
			s[oEsc] = 7
			return s
		},
		"flags":        func(s []byte) []byte { s[oFlags] |= 16; return s },
		"model longer": func(s []byte) []byte { le.PutUint32(s[oLen:], le.Uint32(s[oLen:])+1); return s },
		"model huge":   func(s []byte) []byte { le.PutUint32(s[oLen:], 1<<31); return s },
		"model cut":    func(s []byte) []byte { le.PutUint32(s[oLen:], 10); return s },
		"version":      func(s []byte) []byte { s[oM] = 9; return s },
		"flavour 8":    func(s []byte) []byte { s[oM+1] = 8; return s },
		"order 1":      func(s []byte) []byte { le.PutUint32(s[oM+38:], 1); return s },
		"memory odd":   func(s []byte) []byte { le.PutUint32(s[oM+54:], le.Uint32(s[oM+54:])+16); return s },
		"context":      func(s []byte) []byte { le.PutUint32(s[oM+14:], 3); return s },
		"range 0":      func(s []byte) []byte { le.PutUint32(s[oM+2:], 0); return s },
	}
	d := NewDecoder()
	defer d.Close()
	for name, mut := range cases {
		bad := cp.WithState(mut(bytes.Clone(cp.State)))
		if _, err := resumeFrom(d, e, bad, math.MaxInt64); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	d.MaxMemory = 8 << 20 // the model is 15 MiB
	if _, err := resumeFrom(d, e, cp, math.MaxInt64); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("model over MaxMemory: %v", err)
	}
	d.MaxMemory = 0
	// Statistics altered inside the arena pass the heap check; decoding
	// then fails or yields bytes, and never panics (Guard): flip 484
	// indexes outside the arena without it.
	for _, k := range []int{0, 1, 2, 3, 4, 5, 6, 7, 484} {
		s := bytes.Clone(cp.State)
		s[oM+200+k*997%(int(le.Uint32(s[oLen:]))-200)] ^= byte(1 + k)
		got, err := resumeFrom(d, e, cp.WithState(s), 1<<20)
		if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
			t.Fatalf("flip %d: %v (%d bytes)", k, err, len(got))
		}
	}
	got, err := resumeFrom(d, e, cp, math.MaxInt64)
	if err != nil || int64(len(got)) != e.Size-cp.Off {
		t.Fatalf("good checkpoint: %d bytes, %v", len(got), err)
	}
}
