package implode

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestCheckpointResume: in every variant, from checkpoints taken every
// 3000 bytes (a match may carry one a little past) the resumed decoder
// gives the rest of the output; a state of another variant or cut short
// is ErrCorrupt.
func TestCheckpointResume(t *testing.T) {
	data := append(textish(60_000, 7), randomData(20_000, 8)...)
	n := int64(len(data))
	for _, v := range variants {
		comp := implodeData(data, v.big, v.lit)
		var z Reader
		testutil.CheckResume(t, fmt.Sprintf("%+v", v), data, NewReader(bytes.NewReader(comp), n, v.big, v.lit), func(cp testutil.Taken) (io.Reader, error) {
			return &z, z.ResetAt(bytes.NewReader(comp), bytes.NewReader(comp[cp.In/8:]), n, v.big, v.lit, cp.State, cp.Out, cp.In)
		}, func(st []byte) [][]byte {
			return [][]byte{st[:len(st)-1], append([]byte{st[0], st[1] ^ 1}, st[2:]...)}
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
	for k, v := range variants {
		comp := implodeData(data, v.big, v.lit)
		cps, _ := testutil.TakeCheckpoints(f, NewReader(bytes.NewReader(comp), int64(len(data)), v.big, v.lit), 4000)
		for _, cp := range cps {
			f.Add(uint8(k), cp.State, cp.Out, cp.In)
		}
		comps = append(comps, comp)
	}
	var z Reader
	f.Fuzz(func(t *testing.T, k uint8, st []byte, out, in int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		v := variants[int(k)%len(variants)]
		comp := comps[int(k)%len(comps)]
		at := min(max(in/8, 0), int64(len(comp)))
		err := z.ResetAt(bytes.NewReader(comp), bytes.NewReader(comp[at:]), int64(len(data)), v.big, v.lit, st, out, in)
		if err == nil {
			_, err = io.Copy(io.Discard, &z)
		}
		testutil.CheckDecodeClass(t, nil, 0, err)
	})
}
