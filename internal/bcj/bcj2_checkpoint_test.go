package bcj

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// bcj2Split decodes cut bytes of the streams, takes the state there and
// returns it, what was decoded, and the four streams from the points
// the decoder had read them to (its held bytes are in the state).
func bcj2Split(t testutil.TB, ins [4][]byte, size int64, cut int) ([]byte, []byte, [4]io.Reader, bool) {
	var rs [4]*bytes.Reader
	var rd [4]io.Reader
	for i := range ins {
		rs[i] = bytes.NewReader(ins[i])
		rd[i] = rs[i]
	}
	d := new(BCJ2)
	d.reset(rd, size)
	head := make([]byte, cut)
	n, _ := io.ReadFull(d, head)
	if !d.CanCheckpoint() {
		return nil, head[:n], rd, false
	}
	st := d.AppendState(nil)
	if len(st) != d.StateSize() {
		t.Fatalf("state of %d bytes, StateSize %d", len(st), d.StateSize())
	}
	for i := range rd {
		rd[i] = rs[i] // where the buffers stopped reading
	}
	return st, head[:n], rd, true
}

// FuzzBCJ2State: a BCJ2 decoder resumed from its state gives what the
// uninterrupted decoder gives; a mutated state is ErrCorrupt or
// decodes (garbage) without panic or hang.
func FuzzBCJ2State(f *testing.F) {
	f.Add([]byte{0xE8, 1, 2, 0xE9, 0x0F, 0x85, 9, 0xE8, 0xE8, 7}, []byte{0, 0, 0, 1, 0, 0, 0, 5}, []byte{0, 0, 0, 2}, []byte{0, 0x40, 0, 0, 0, 0, 0, 0x10, 0x20}, int64(24), 4, []byte{})
	f.Fuzz(func(t *testing.T, main, call, jump, rc []byte, size int64, cut int, patch []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		size = min(size, 1<<16)
		cut = max(min(cut, 1<<16), 0)
		ins := [4][]byte{main, call, jump, rc}
		whole, _ := io.ReadAll(NewBCJ2(bytes.NewReader(main), bytes.NewReader(call), bytes.NewReader(jump), bytes.NewReader(rc), size))
		st, head, rest, ok := bcj2Split(t, ins, size, cut)
		if !ok {
			return
		}
		for i := 0; i+2 < len(patch); i += 3 {
			st[(int(patch[i])<<8|int(patch[i+1]))*len(st)>>16] = patch[i+2]
		}
		s, err := ParseBCJ2State(st, int64(len(head)))
		if err != nil {
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		left := int64(-1)
		if size >= 0 {
			left = size - int64(len(head))
		}
		d := new(BCJ2)
		d.ResetState(rest, left, int64(len(head)), &s)
		tail, _ := io.ReadAll(io.LimitReader(d, 1<<17))
		if len(patch) < 3 && !bytes.Equal(append(head, tail...), whole) {
			t.Fatalf("resumed at %d: %d+%d bytes, whole %d", len(head), len(head), len(tail), len(whole))
		}
	})
}

// TestBCJ2StateRoundTrip: resuming at every cut of a code-like stream
// gives the uninterrupted output; a state read at another offset, or
// cut short, is ErrCorrupt.
func TestBCJ2StateRoundTrip(t *testing.T) {
	main := codeLike(20000, 3)
	call := codeLike(8000, 5)
	jump := codeLike(8000, 6)
	rc := codeLike(6000, 7)
	ins := [4][]byte{main, call, jump, rc}
	whole, _ := io.ReadAll(NewBCJ2(bytes.NewReader(main), bytes.NewReader(call), bytes.NewReader(jump), bytes.NewReader(rc), -1))
	if len(whole) < 15000 {
		t.Fatalf("%d bytes", len(whole))
	}
	for cut := 1; cut < len(whole); cut += 997 {
		st, head, rest, ok := bcj2Split(t, ins, -1, cut)
		if !ok {
			t.Fatalf("no checkpoint at %d", cut)
		}
		if _, err := ParseBCJ2State(st, int64(len(head)+1)); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("state at %d taken at %d: %v", len(head), len(head)+1, err)
		}
		if _, err := ParseBCJ2State(st[:len(st)-1], int64(len(head))); !errors.Is(err, errs.ErrCorrupt) && len(st) > bcj2Head+8 {
			t.Fatalf("state cut short: %v", err)
		}
		s, err := ParseBCJ2State(st, int64(len(head)))
		if err != nil {
			t.Fatal(err)
		}
		d := new(BCJ2)
		d.ResetState(rest, -1, int64(len(head)), &s)
		tail, _ := io.ReadAll(d)
		if !bytes.Equal(append(head, tail...), whole) {
			t.Fatalf("resumed at %d: output differs", cut)
		}
	}
}
