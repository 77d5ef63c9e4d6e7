package unpack29

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

// seedStreams adds the packed data of every test archive entry.
func seedStreams(f testutil.F, add func(packed []byte, e rar4Entry)) {
	n := 0
	defer func() {
		if n == 0 {
			f.Fatal("no seed streams")
		}
	}()
	for _, p := range testutil.Glob(f, "../../../testdata/rar29/*.rar") {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		ents, _ := parseRAR4(data)
		for _, e := range ents {
			if len(e.Packed) > 0 && len(e.Packed) < 64<<10 {
				add(e.Packed, e)
				n++
			}
		}
	}
}

// FuzzUnpack29 decodes arbitrary bytes as packed data with a size and
// dictionary taken from the first byte: no panic, no hang, only the
// package's error classes, and Read agrees with WriteTo.
func FuzzUnpack29(f *testing.F) {
	seedStreams(f, func(p []byte, e rar4Entry) {
		f.Add(append([]byte{2}, p...))  // 70000 bytes
		f.Add(append([]byte{11}, p...)) // 300000 bytes, then a solid second pass
	})
	d1, d2 := NewDecoder(), NewDecoder()
	d1.MaxMemory, d2.MaxMemory = 16<<20, 16<<20 // keep executions fast; bigger models hit ErrLimit
	// Windows of at most 4 MiB and PPMd models of at most 16 MiB, twice
	// (two decoders), plus the outputs.
	body := rar4test.FuzzBody(d1, d2, 96<<20, errs.ErrUnsupported, errs.ErrLimit)
	f.Fuzz(func(t *testing.T, in []byte) { body(t, in) })
}

// FuzzFilters runs the standard filters on arbitrary blocks and
// registers: no panic, and the output has the block's length.
func FuzzFilters(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0xe8, 1, 2, 3, 4, 5, 0xe8, 0xff, 0xff, 0xff, 0xff, 0})
	f.Add(append([]byte{4, 3, 0, 0}, bytes.Repeat([]byte{1, 2, 3, 4}, 40)...))
	f.Add(append([]byte{5, 30, 1, 0}, bytes.Repeat([]byte{9, 200, 3}, 60)...))
	f.Add(append([]byte{6, 2, 0, 0}, bytes.Repeat([]byte{7, 250}, 100)...))
	f.Add(append([]byte{3, 0, 0, 0}, bytes.Repeat([]byte{0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x50}, 8)...))
	// Out-of-range parameters (the block passes unfiltered, as in unrar):
	// RGB width below 3, audio with no channel, a 2-byte E8 block.
	f.Add(append([]byte{4, 1, 0, 0}, bytes.Repeat([]byte{5, 6, 7}, 30)...))
	f.Add(append([]byte{5, 0, 0, 0}, bytes.Repeat([]byte{8, 9}, 30)...))
	f.Add([]byte{0, 0, 0, 0, 0xe8, 1})
	mem := make([]byte, vmMemSize)
	f.Fuzz(func(t *testing.T, in []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 8<<20)()
		if len(in) < 4 {
			return
		}
		kind := filterKind(in[0]%6 + 1)
		r := [7]uint32{uint32(in[1]), uint32(in[2]), 0, vmGlobalAddr, 0, 0, 0}
		off := uint32(in[3]) << 12
		blk := in[4:]
		if len(blk) > vmMemSize/2 {
			blk = blk[:vmMemSize/2]
		}
		n := copy(mem, blk)
		out, err := applyFilter(kind, mem, n, &r, off)
		if err != nil {
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		if len(out) != n {
			t.Fatalf("filter %d: %d bytes out of %d", kind, len(out), n)
		}
		if kind == filterDelta && (r[0] == 0 || r[0] > 1024) {
			// Out of range: the block passes unfiltered, as in unrar.
			if !bytes.Equal(out, blk[:n]) {
				t.Fatal("delta with a bad channel count changed the block")
			}
		} else if kind == filterDelta {
			// Delta is easy to invert: re-encode and compare.
			ch := int(r[0])
			enc := make([]byte, 0, n)
			for c := 0; c < ch; c++ {
				var prev byte
				for j := c; j < n; j += ch {
					enc = append(enc, prev-out[j])
					prev = out[j]
				}
			}
			if !bytes.Equal(enc, blk[:n]) {
				t.Fatal("delta does not round-trip")
			}
		}
	})
}

// FuzzCheckpoint29 resumes from arbitrary checkpoint states over
// arbitrary packed data (seeded with real checkpoints of the test
// archives and the packed data after them): ResetAt refuses a state with
// ErrCorrupt or the decoder runs, never panicking or hanging, with only
// the package's error classes; a state it accepts writes again as the
// same bytes.
func FuzzCheckpoint29(f *testing.F) {
	for _, name := range []string{"m3.rar", "solid.rar", "delta.rar", "e8.rar", "ppmd_solid.rar"} {
		ents := cpEntries(f, name)
		d := NewDecoder()
		for i, e := range ents {
			if e.Dir || e.Method == 0x30 || e.Size == 0 {
				continue
			}
			if err := d.Reset(bytes.NewReader(e.Packed), e.Dict, e.Size, e.Solid); err != nil {
				f.Fatal(err)
			}
			d.OnCheckpoint(0, func(d *Decoder) int64 {
				at := d.InputBits() >> 3
				f.Add(d.Checkpoint(nil), e.Packed[at:min(int64(len(e.Packed)), at+4096)], byte(i))
				if d.EntryOffset() > 8<<10 {
					return math.MaxInt64
				}
				return d.EntryOffset() + 2500
			})
			if _, err := io.Copy(io.Discard, d); err != nil {
				f.Fatal(err)
			}
		}
		d.Close()
	}
	sizes := []int64{-1, 1000, 70000, 1 << 20}
	dicts := []int64{64 << 10, 1 << 20, 4 << 20, 0}
	d := NewDecoder()
	d.MaxMemory = 32 << 20 // the seeds' models are 25 MiB
	f.Fuzz(func(t *testing.T, state, packed []byte, sel byte) {
		// A window of at most 4 MiB, a PPMd model of at most 32 MiB
		// (its arena and the heap check's bitmaps), the filter queue
		// and 1 MiB of output.
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 96<<20)()
		size, dict := sizes[sel&3], dicts[sel>>2&3]
		if err := d.ResetAt(bytes.NewReader(packed), dict, size, state); err != nil {
			if !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrLimit) {
				t.Fatalf("ResetAt: %v", err)
			}
			return
		}
		if got := d.Checkpoint(nil); !bytes.Equal(got, state) {
			t.Fatalf("restored state writes %d other bytes (%d)", len(got), len(state))
		}
		_, err := io.Copy(io.Discard, io.LimitReader(d, 1<<20))
		if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) &&
			!errors.Is(err, errs.ErrUnsupported) && !errors.Is(err, errs.ErrLimit) {
			t.Fatalf("unexpected error class: %v", err)
		}
	})
}
