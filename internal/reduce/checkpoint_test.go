package reduce

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestCheckpointResume: with every factor, from checkpoints taken every
// 3000 bytes the resumed decoder gives the rest of the output (DLE runs
// included); a state of another factor or cut short is ErrCorrupt.
func TestCheckpointResume(t *testing.T) {
	data := append(textish(60_000, 7), randomData(20_000, 8)...)
	for factor := 1; factor <= 4; factor++ {
		comp := reduceData(data, factor, 32)
		n := int64(len(data))
		cps, got := testutil.TakeCheckpoints(t, NewReader(bytes.NewReader(comp), n, factor), 3000)
		if !bytes.Equal(got, data) || len(cps) < 20 {
			t.Fatalf("factor %d: %d checkpoints", factor, len(cps))
		}
		var z Reader
		for k, cp := range cps {
			if testutil.Short() && k%4 != 1 {
				continue // under -short (and -race) a quarter of them
			}
			if err := z.ResetAt(bytes.NewReader(comp), bytes.NewReader(comp[cp.In/8:]), n, factor, cp.State, cp.Out, cp.In); err != nil {
				t.Fatalf("factor %d at %d: %v", factor, cp.Out, err)
			}
			rest, err := io.ReadAll(&z)
			if err != nil || !bytes.Equal(rest, data[cp.Out:]) {
				t.Fatalf("factor %d from %d: %v", factor, cp.Out, err)
			}
		}
		cp := cps[len(cps)/2]
		for _, bad := range [][]byte{cp.State[:len(cp.State)-1], append([]byte{cp.State[0], cp.State[1]%4 + 1}, cp.State[2:]...)} {
			if err := z.ResetAt(bytes.NewReader(comp), bytes.NewReader(comp[cp.In/8:]), n, factor, bad, cp.Out, cp.In); !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("factor %d: bad state: %v", factor, err)
			}
		}
		z.Close()
	}
}

// FuzzCheckpointRestore resumes mutated checkpoints (state, offsets)
// taken along real streams: no panic, hang or over-allocation, and a
// failure is ErrCorrupt or ErrTruncated.
func FuzzCheckpointRestore(f *testing.F) {
	data := append(textish(30_000, 7), randomData(5_000, 8)...)
	var comps [][]byte
	for factor := 1; factor <= 4; factor++ {
		comp := reduceData(data, factor, 32)
		cps, _ := testutil.TakeCheckpoints(f, NewReader(bytes.NewReader(comp), int64(len(data)), factor), 4000)
		for _, cp := range cps {
			f.Add(uint8(factor-1), cp.State, cp.Out, cp.In)
		}
		comps = append(comps, comp)
	}
	var z Reader
	f.Fuzz(func(t *testing.T, k uint8, st []byte, out, in int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		factor := int(k)%4 + 1
		comp := comps[factor-1]
		at := min(max(in/8, 0), int64(len(comp)))
		err := z.ResetAt(bytes.NewReader(comp), bytes.NewReader(comp[at:]), int64(len(data)), factor, st, out, in)
		if err == nil {
			_, err = io.Copy(io.Discard, &z)
		}
		if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
			t.Fatal(err)
		}
	})
}
