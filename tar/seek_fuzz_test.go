package tar

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// cpFuzzFiles are the streams FuzzCheckpointRestore resumes, one per
// checkpoint kind.
var cpFuzzFiles = append(seekTarballs[:len(seekTarballs):len(seekTarballs)], "seek.txt.xz")

var cpFuzz struct {
	once sync.Once
	as   []*Archive
	cps  [][]engine.Checkpoint
}

// cpFuzzArchives opens the cpFuzzFiles with the fuzz limits and takes
// their checkpoints (every 4 KiB) by reading each stream once.
func cpFuzzArchives(t testutil.TB) ([]*Archive, [][]engine.Checkpoint) {
	cpFuzz.once.Do(func() {
		for _, name := range cpFuzzFiles {
			data := readTestdata(t, name)
			a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: fuzzLimits, Name: name}))
			if err != nil {
				panic(err)
			}
			a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 4 << 10, MaxMemory: 64 << 20})
			if _, _, err := readFrom(a, len(a.ents)-1, 0, 1<<30); err != nil {
				panic(err)
			}
			cpFuzz.as = append(cpFuzz.as, a)
			cpFuzz.cps = append(cpFuzz.cps, a.cps.Snapshot())
		}
	})
	return cpFuzz.as, cpFuzz.cps
}

// FuzzCheckpointRestore: resuming a stream from a checkpoint whose
// state, offsets or kind were altered never panics, hangs or allocates
// beyond the limits; what it decodes without error is at most the
// stream's rest. The archives are real (testdata), the checkpoints the
// ones a pass over them took, mutated.
func FuzzCheckpointRestore(f *testing.F) {
	as, cps := cpFuzzArchives(f)
	for k := range as {
		for _, cp := range cps[k] {
			f.Add(uint8(k), cp.State, cp.Out, cp.In)
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, state []byte, out, in int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		as, _ := cpFuzzArchives(t)
		a := as[int(k)%len(as)]
		cp := engine.Checkpoint{Kind: cpKindOf(a.kind), Out: out, In: in, State: state}
		var cin countReader
		d, err := a.openStream(&cp, &cin)
		if err != nil {
			return
		}
		defer d.Close()
		var g guard
		g.reset(d, &cin, &a.lim)
		n, _ := io.Copy(io.Discard, io.LimitReader(&g, 4<<20))
		if rest := a.lim.MaxTotalSize; n > rest {
			t.Fatalf("decoded %d bytes", n)
		}
	})
}
