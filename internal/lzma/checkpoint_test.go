package lzma

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestCheckpointResume takes a checkpoint at every chunk boundary of an
// LZMA2 stream (64 KiB dictionary, so the window wraps, and data that
// makes chunks keep their state) and checks that a decoder restarted
// from each one produces the rest of the stream exactly.
func TestCheckpointResume(t *testing.T) {
	want := genMixed(3, 1<<20)
	var comp bytes.Buffer
	w, err := NewWriter2(&comp, Level(3), DictSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(want)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	const dict = 64 << 10
	type cp struct {
		state   []byte
		out, in int64
	}
	var cps []cp
	z, err := NewReader2(bytes.NewReader(comp.Bytes()), dict, int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 3000)
	for {
		if z.CanCheckpoint() && z.total > 0 {
			st, out, in := z.Checkpoint(nil)
			if len(st) != z.CheckpointSize() {
				t.Fatalf("checkpoint of %d bytes, CheckpointSize says %d", len(st), z.CheckpointSize())
			}
			if out != int64(len(got)) {
				t.Fatalf("checkpoint at output %d, delivered %d", out, len(got))
			}
			cps = append(cps, cp{st, out, in})
		}
		n, err := z.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatal("sequential decode differs")
	}
	if len(cps) < 5 {
		t.Fatalf("only %d checkpoints", len(cps))
	}
	var wrapped bool
	for _, c := range cps {
		z2 := new(Reader2)
		if err := z2.ResetAt(bytes.NewReader(comp.Bytes()[c.in:]), dict, int64(len(want)), c.state, c.out, c.in); err != nil {
			t.Fatal(err)
		}
		wrapped = wrapped || z2.w.full
		rest, err := io.ReadAll(z2)
		if err != nil {
			t.Fatalf("from %d: %v", c.out, err)
		}
		if !bytes.Equal(rest, want[c.out:]) {
			t.Fatalf("from checkpoint at %d: output differs at %d", c.out, diffAt(rest, want[c.out:]))
		}
		z2.Close()
	}
	if !wrapped {
		t.Fatal("no checkpoint with a wrapped window")
	}
	// A damaged state is refused, not trusted.
	c := cps[len(cps)/2]
	for _, cut := range []int{0, 10, len(c.state) - 1} {
		z2 := new(Reader2)
		if err := z2.ResetAt(bytes.NewReader(comp.Bytes()[c.in:]), dict, int64(len(want)), c.state[:cut], c.out, c.in); err == nil {
			t.Fatalf("state cut at %d accepted", cut)
		}
	}
	// So is a state with values no decoder reaches: a probability of 0
	// or 2048 and up, a distance beyond the history after a match (the
	// literal decoder reads there unchecked).
	const head = 6 + 5*4 + 2*8 + 4
	for name, f := range map[string]func(b []byte){
		"prob0": func(b []byte) { b[head], b[head+1] = 0, 0 },
		"prob":  func(b []byte) { b[head+1] = 0x08 },
		"rep0":  func(b []byte) { b[6], b[10], b[11], b[12], b[13] = 8, 0, 0, 0, 0x7f },
		"full":  func(b []byte) { b[5] = 3 },
	} {
		st := append([]byte(nil), c.state...)
		f(st)
		z2 := new(Reader2)
		if err := z2.ResetAt(bytes.NewReader(comp.Bytes()[c.in:]), dict, int64(len(want)), st, c.out, c.in); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// And an empty window (no history kept, length 0): the decoder
	// writes into the window without a length check.
	hist := binary.LittleEndian.Uint64(c.state[34:])
	if c.state[5] == 1 {
		hist = binary.LittleEndian.Uint64(c.state[26:])
	}
	st := append([]byte(nil), c.state[:len(c.state)-int(hist)]...)
	st[5] = 0
	binary.LittleEndian.PutUint64(st[26:], 0)
	binary.LittleEndian.PutUint64(st[34:], 0)
	z2 := new(Reader2)
	if err := z2.ResetAt(bytes.NewReader(comp.Bytes()[c.in:]), dict, int64(len(want)), st, c.out, c.in); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("empty window: %v, want ErrCorrupt", err)
		io.Copy(io.Discard, z2)
	}
}
