package shrink

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestCheckpointResume: from checkpoints taken every 3000 bytes along
// streams with and without partial clears (and code size increases) the
// resumed decoder gives the rest of the output; a cut state or one with
// a prefix outside the table is ErrCorrupt. The run of one byte makes
// nearly every code KwKwK (the code being defined, used at once), so a
// resume there needs the previous string's first byte.
func TestCheckpointResume(t *testing.T) {
	mixed := append(textish(60_000, 7), randomData(20_000, 8)...)
	run := bytes.Repeat([]byte{'a'}, 80_000)
	for _, c := range []struct {
		data       []byte
		clearEvery int
	}{{mixed, 0}, {mixed, 700}, {run, 0}} {
		data, clearEvery := c.data, c.clearEvery
		comp, _, _ := shrinkData(data, clearEvery)
		n := int64(len(data))
		cps, got := testutil.TakeCheckpoints(t, NewReader(bytes.NewReader(comp), n), 3000)
		if !bytes.Equal(got, data) || len(cps) < 20 {
			t.Fatalf("clear every %d: %d checkpoints", clearEvery, len(cps))
		}
		var z Reader
		for k, cp := range cps {
			if testutil.Short() && k%4 != 1 {
				continue // under -short (and -race) a quarter of them
			}
			if err := z.ResetAt(bytes.NewReader(comp[cp.In/8:]), n, cp.State, cp.Out, cp.In); err != nil {
				t.Fatalf("clear every %d at %d: %v", clearEvery, cp.Out, err)
			}
			rest, err := io.ReadAll(&z)
			if err != nil || !bytes.Equal(rest, data[cp.Out:]) {
				t.Fatalf("clear every %d from %d: %v", clearEvery, cp.Out, err)
			}
		}
		cp := cps[len(cps)/2]
		wild := bytes.Clone(cp.State)
		wild[cpHead+2*300+1] = 0x40 // code 300's prefix: 0x40xx, past the table
		for _, bad := range [][]byte{cp.State[:len(cp.State)-1], wild} {
			if err := z.ResetAt(bytes.NewReader(comp[cp.In/8:]), n, bad, cp.Out, cp.In); !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("bad state: %v", err)
			}
		}
		z.Close()
	}
}

// FuzzCheckpointRestore resumes mutated checkpoints (a patch of the
// state's table, the scalars, the offsets) taken along real streams: no
// panic, hang or over-allocation, and a failure is ErrCorrupt or
// ErrTruncated.
func FuzzCheckpointRestore(f *testing.F) {
	data := append(textish(30_000, 7), randomData(5_000, 8)...)
	var comps [][]byte
	var states [][]byte
	for k, clearEvery := range []int{0, 500} {
		comp, _, _ := shrinkData(data, clearEvery)
		cps, _ := testutil.TakeCheckpoints(f, NewReader(bytes.NewReader(comp), int64(len(data))), 4000)
		for _, cp := range cps {
			f.Add(uint8(k), uint8(len(states)), []byte{}, cp.Out, cp.In)
			states = append(states, cp.State)
		}
		comps = append(comps, comp)
	}
	var z Reader
	f.Fuzz(func(t *testing.T, k, s uint8, patch []byte, out, in int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		comp := comps[int(k)%len(comps)]
		st := bytes.Clone(states[int(s)%len(states)])
		// patch: (offset/4 low, offset/4 high, value) triples into the state.
		for i := 0; i+2 < len(patch); i += 3 {
			if at := (int(patch[i]) | int(patch[i+1])<<8) * 4 % len(st); at >= 0 {
				st[at] = patch[i+2]
			}
		}
		at := min(max(in/8, 0), int64(len(comp)))
		err := z.ResetAt(bytes.NewReader(comp[at:]), int64(len(data)), st, out, in)
		if err == nil {
			_, err = io.Copy(io.Discard, &z)
		}
		if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
			t.Fatal(err)
		}
	})
}
