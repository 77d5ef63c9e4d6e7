package sevenzip

import (
	"bytes"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
)

// TestRestoredCheckpointShiftedInput: restored LZMA checkpoints whose
// input offset is one byte off (an index altered so, or written by a
// bug) cost at most their check span each, once: the read at a target
// after them reads about what a read from the folder's start does plus
// one check span (packed) per bad checkpoint, gives the right bytes,
// and a second read costs no check at all.
func TestRestoredCheckpointShiftedInput(t *testing.T) {
	for _, name := range []string{"lzma-big.7z", "lzma2.7z"} {
		t.Run(name, func(t *testing.T) {
			pol := cpPolicy
			_, want, cps := exportedCPs(t, name, 2)
			last := cps[len(cps)-1]
			off := last.EntryOff + 100
			if last.Entry < 0 || off >= int64(len(want[last.Entry])) {
				t.Fatal("no room after the last checkpoint")
			}
			// The cost of the read with no checkpoint: from the start.
			base, cb := openCounted(t, name)
			n0 := cb.n.Load()
			if got, _, err := entryAt(base, last.Entry, off, 100); err != nil || !bytes.Equal(got, want[last.Entry][off:off+100]) {
				t.Fatal(err)
			}
			fromStart := cb.n.Load() - n0
			for _, d := range []int64{1, -1} {
				b, c := openCounted(t, name)
				b.caps().SetCheckpoints(pol)
				var mod []engine.Checkpoint
				for _, cp := range cps {
					cp.In += d
					mod = append(mod, cp)
				}
				if err := b.caps().RestoreCheckpoints(mod); err != nil {
					t.Fatal(err)
				}
				n0 := c.n.Load()
				got, start, err := entryAt(b, last.Entry, off, 100)
				if err != nil || !bytes.Equal(got, want[last.Entry][off:off+100]) {
					t.Fatalf("shift %d: %v, bytes differ (from %d)", d, err, start)
				}
				cost := c.n.Load() - n0
				st := b.caps().CheckpointStats()
				// A check reads at most its span's packed bytes (at most
				// the span, plus the pack reader's buffer).
				bound := fromStart + int64(st.Rejected)*(engine.CheckSpan+2*packBufSize)
				t.Logf("shift %d: read %d bytes (from the start: %d), %d rejected", d, cost, fromStart, st.Rejected)
				if st.Rejected == 0 || st.Verified != 0 || cost > bound {
					t.Fatalf("shift %d: read %d bytes of the archive, bound %d; %+v", d, cost, bound, st)
				}
				n0 = c.n.Load()
				if got, _, err := entryAt(b, last.Entry, off, 100); err != nil || !bytes.Equal(got, want[last.Entry][off:off+100]) {
					t.Fatal(err)
				}
				if again, st2 := c.n.Load()-n0, b.caps().CheckpointStats(); again > fromStart+2*packBufSize || st2.Rejected != st.Rejected {
					t.Fatalf("shift %d: second read %d bytes, from the start %d; %+v", d, again, fromStart, st2)
				}
			}
		})
	}
}

// TestRestoredCheckpointCheckedOnce: a read whose target lies inside a
// restored checkpoint's check span decodes the span once: the bytes the
// check decoded serve the read (it reads the archive no more than a
// read right after the span does, which goes on from the reader that
// checked it).
func TestRestoredCheckpointCheckedOnce(t *testing.T) {
	for _, name := range []string{"bcj-lzma2.7z", "bcj2-lzma.7z", "bzip2-solid.7z"} {
		t.Run(name, func(t *testing.T) {
			pol := cpPolicy
			_, want, cps := exportedCPs(t, name, 2)
			if testing.Short() {
				cps = sparse(cps, 3)
			}
			tried := 0
			for _, cp := range cps {
				e := cp.Entry
				if e < 0 || cp.CheckLen < engine.CheckSpan || cp.EntryOff+cp.CheckLen+10 >= int64(len(want[e])) {
					continue
				}
				costAt := func(off int64) int64 {
					b, c := openCounted(t, name)
					b.caps().SetCheckpoints(pol)
					if err := b.caps().RestoreCheckpoints([]engine.Checkpoint{cp}); err != nil {
						t.Fatal(err)
					}
					n0 := c.n.Load()
					got, start, err := entryAt(b, e, off, 10)
					if err != nil || !bytes.Equal(got, want[e][off:off+10]) || start < cp.EntryOff {
						t.Fatalf("entry %d at %d: %v, start %d (checkpoint at %d)", e, off, err, start, cp.EntryOff)
					}
					if st := b.caps().CheckpointStats(); st.Verified != 1 {
						t.Fatalf("%+v", st)
					}
					return c.n.Load() - n0
				}
				inside := costAt(cp.EntryOff + cp.CheckLen/2)
				after := costAt(cp.EntryOff + cp.CheckLen)
				t.Logf("checkpoint at %d: read inside the span %d bytes, after it %d", cp.Out, inside, after)
				if inside > after {
					t.Fatalf("checkpoint at %d: a read inside its check span read %d bytes, one after it %d", cp.Out, inside, after)
				}
				tried++
			}
			if tried == 0 {
				t.Fatal("no checkpoint to try")
			}
		})
	}
}
