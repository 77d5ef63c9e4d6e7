package reduce

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestCheckpointResume: with every factor, from checkpoints taken every
// 3000 bytes the resumed decoder gives the rest of the output (DLE runs
// included); a state of another factor or cut short is ErrCorrupt.
func TestCheckpointResume(t *testing.T) {
	data := append(textish(60_000, 7), randomData(20_000, 8)...)
	n := int64(len(data))
	for factor := 1; factor <= 4; factor++ {
		comp := reduceData(data, factor, 32)
		var z Reader
		testutil.CheckResume(t, fmt.Sprintf("factor %d", factor), data, NewReader(bytes.NewReader(comp), n, factor), func(cp testutil.Taken) (io.Reader, error) {
			return &z, z.ResetAt(bytes.NewReader(comp), bytes.NewReader(comp[cp.In/8:]), n, factor, cp.State, cp.Out, cp.In)
		}, func(st []byte) [][]byte {
			return [][]byte{st[:len(st)-1], append([]byte{st[0], st[1]%4 + 1}, st[2:]...)}
		})
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
		testutil.CheckDecodeClass(t, nil, 0, err)
	})
}
