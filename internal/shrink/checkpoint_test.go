package shrink

import (
	"bytes"
	"fmt"
	"io"
	"testing"

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
		var z Reader
		testutil.CheckResume(t, fmt.Sprintf("clear every %d", clearEvery), data, NewReader(bytes.NewReader(comp), n), func(cp testutil.Taken) (io.Reader, error) {
			return &z, z.ResetAt(bytes.NewReader(comp[cp.In/8:]), n, cp.State, cp.Out, cp.In)
		}, func(st []byte) [][]byte {
			wild := bytes.Clone(st)
			wild[cpHead+2*300+1] = 0x40 // code 300's prefix: 0x40xx, past the table
			return [][]byte{st[:len(st)-1], wild}
		})
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
		testutil.CheckDecodeClass(t, nil, 0, err)
	})
}
