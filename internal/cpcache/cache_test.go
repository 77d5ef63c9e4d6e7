package cpcache

import (
	"errors"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
)

func cp(stream int, out int64, n int) engine.Checkpoint {
	return engine.Checkpoint{Kind: "t", Stream: stream, Out: out, State: make([]byte, n)}
}

// TestFindChecked: a restored checkpoint is checked once before it is
// returned; one that fails is dropped and the next latest tried; a check
// error is returned and the checkpoint kept; a taken one is never
// checked; Snapshot leaves the unchecked out.
func TestFindChecked(t *testing.T) {
	var c Cache
	c.SetPolicy(engine.CheckpointPolicy{Interval: 1, MaxMemory: 1000})
	c.Add(cp(1, 100, 10))
	c.Restore(cp(1, 200, 10))
	c.Restore(cp(1, 300, 10))
	c.Restore(cp(1, 300, 10)) // the same offset again: kept once
	if st := c.Stats(); st.Count != 3 || st.Restored != 2 || st.Taken != 1 {
		t.Fatalf("%+v", st)
	}
	if got := c.Snapshot(); len(got) != 1 || got[0].Out != 100 {
		t.Fatalf("snapshot %+v", got)
	}
	var checked []int64
	bad := map[int64]bool{300: true}
	check := func(cp engine.Checkpoint) (bool, error) {
		checked = append(checked, cp.Out)
		return !bad[cp.Out], nil
	}
	boom := errors.New("password")
	if _, ok, err := c.FindChecked(1, 350, func(engine.Checkpoint) (bool, error) { return false, boom }); ok || err != boom {
		t.Fatalf("check error: %v %v", ok, err)
	}
	got, ok, err := c.FindChecked(1, 350, check)
	if err != nil || !ok || got.Out != 200 || len(checked) != 2 || checked[0] != 300 || checked[1] != 200 {
		t.Fatalf("got %+v %v %v, checked %v", got, ok, err, checked)
	}
	got, ok, _ = c.FindChecked(1, 350, check)
	if !ok || got.Out != 200 || len(checked) != 2 {
		t.Fatalf("verified checkpoint checked again: %v", checked)
	}
	if got, _, _ := c.FindChecked(1, 150, check); got.Out != 100 || len(checked) != 2 {
		t.Fatalf("taken checkpoint checked: %v", checked)
	}
	st := c.Stats()
	if st.Count != 2 || st.Bytes != 20 || st.Verified != 1 || st.Rejected != 1 {
		t.Fatalf("%+v", st)
	}
	if got := c.Snapshot(); len(got) != 2 || got[0].Out != 100 || got[1].Out != 200 {
		t.Fatalf("snapshot %+v", got)
	}
	// Restored checkpoints count against the memory bound.
	c.Restore(cp(2, 10, 990))
	if st := c.Stats(); st.Bytes > 1000 || st.Evicted == 0 {
		t.Fatalf("over the bound: %+v", st)
	}
}

func TestSumHead(t *testing.T) {
	a := cp(1, 100, 10)
	base := SumHead(a)
	for name, f := range map[string]func(*engine.Checkpoint){
		"stream": func(c *engine.Checkpoint) { c.Stream++ },
		"out":    func(c *engine.Checkpoint) { c.Out++ },
		"in":     func(c *engine.Checkpoint) { c.In++ },
		"kind":   func(c *engine.Checkpoint) { c.Kind = "u" },
		"state":  func(c *engine.Checkpoint) { c.State = append([]byte{1}, c.State[1:]...) },
	} {
		b := a
		f(&b)
		if SumHead(b) == base {
			t.Errorf("%s: same sum", name)
		}
	}
}
