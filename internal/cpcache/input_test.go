package cpcache

import (
	"bytes"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestInputCheck: with SetInput, a restored checkpoint is used only
// when the archive's bytes before its input offset (over two spans)
// give its Input: a byte changed there drops it before check runs, a
// byte changed after it does not; SealInputs gives the digest of the
// bytes themselves; and verifying many checkpoints, latest first, reads
// the input once, not once per checkpoint.
func TestInputCheck(t *testing.T) {
	data := testutil.RandomBytes(40<<20, 7)
	// Two spans: [1 MiB, 21 MiB) and [22 MiB, 40 MiB).
	spans := func(r *bytes.Reader) []Span {
		return []Span{{R: r, Off: 1 << 20, Len: 20 << 20}, {R: r, Off: 22 << 20, Len: 18 << 20}}
	}
	joined := append(append([]byte(nil), data[1<<20:21<<20]...), data[22<<20:]...)
	setup := func(src []byte) *Cache {
		r := bytes.NewReader(src)
		c := &Cache{}
		c.SetPolicy(engine.CheckpointPolicy{Interval: 1, MaxMemory: 1 << 30})
		c.SetInput(func(cp engine.Checkpoint) (Input, error) { return Input{Key: 3, Spans: spans(r), N: cp.In}, nil })
		return c
	}
	// Sealed over the original bytes: checkpoints at every 1 MiB of input.
	var cps []engine.Checkpoint
	for k := int64(1); k < 38; k++ {
		cps = append(cps, engine.Checkpoint{Kind: "t", Stream: 3, Out: k << 20, In: k<<20 + 5, State: []byte{1}})
	}
	if err := setup(data).SealInputs(cps); err != nil {
		t.Fatal(err)
	}
	if want := blake3.Sum256(joined[:cps[25].In]); cps[25].Input != want {
		t.Fatal("the sealed input is not the digest of the bytes before the checkpoint")
	}
	// Each checkpoint looked for, latest first: it, or when it is
	// dropped the latest kept before it.
	verify := func(src []byte, want func(engine.Checkpoint) bool) (int64, *Cache) {
		c := setup(src)
		for _, cp := range cps {
			c.Restore(cp)
		}
		before := InputRead.Load()
		for k := len(cps) - 1; k >= 0; k-- {
			got, ok, err := c.FindChecked(3, cps[k].Out, func(engine.Checkpoint) (bool, error) { return true, nil })
			if err != nil {
				t.Fatal(err)
			}
			if w := want(cps[k]); w && (!ok || got.Out != cps[k].Out) || !w && ok && (got.Out >= cps[k].Out || !want(got)) {
				t.Fatalf("checkpoint at %d: found %v at %d, want %v", cps[k].Out, ok, got.Out, w)
			}
		}
		return InputRead.Load() - before, c
	}
	read, c := verify(data, func(engine.Checkpoint) bool { return true })
	if last := cps[len(cps)-1].In; read != last {
		t.Errorf("verifying %d checkpoints, latest first, read %d bytes of an input of %d", len(cps), read, last)
	}
	if st := c.Stats(); st.Verified != int64(len(cps)) || st.Rejected != 0 {
		t.Errorf("%+v", st)
	}
	// A byte changed in the second span, at joined offset 30 MiB: the
	// checkpoints past it are dropped (check never runs for them), those
	// before it are used.
	changed := bytes.Clone(data)
	changed[22<<20+(30<<20-20<<20)] ^= 1
	read, c = verify(changed, func(cp engine.Checkpoint) bool { return cp.In <= 30<<20 })
	if last := cps[len(cps)-1].In; read != last {
		t.Errorf("with a changed byte, read %d bytes of an input of %d", read, last)
	}
	if st := c.Stats(); st.Rejected != 8 || st.Verified != int64(len(cps))-8 {
		t.Errorf("%+v", st)
	}
	// A zero Input (an index without one) is never trusted.
	c = setup(data)
	c.Restore(engine.Checkpoint{Kind: "t", Stream: 3, Out: 1, In: 1, State: []byte{1}})
	if _, ok, _ := c.FindChecked(3, 10, func(engine.Checkpoint) (bool, error) { return true, nil }); ok {
		t.Error("a checkpoint without its input digest used")
	}
}
