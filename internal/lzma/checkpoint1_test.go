package lzma

import (
	"bytes"
	"errors"
	"github.com/go-unarc/unarc/internal/testutil"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// lzma1Stream compresses data as a raw LZMA1 stream with a small
// dictionary (so the window wraps) and returns it with its properties.
func lzma1Stream(t testutil.TB, data []byte, dict int64) ([]byte, Props) {
	t.Helper()
	var comp bytes.Buffer
	w, err := NewWriter(&comp, Level(3), DictSize(dict), KnownSize(int64(len(data))))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return comp.Bytes(), w.Props()
}

type cp1 struct {
	state   []byte
	out, in int64
}

// takeCheckpoints1 decodes the stream in odd-sized reads and takes a
// checkpoint wherever one may be taken, at most every gap bytes.
func takeCheckpoints1(t *testing.T, comp []byte, p Props, size int64, gap int) ([]byte, []cp1) {
	t.Helper()
	z, err := NewReader(bytes.NewReader(comp), p, size)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var cps []cp1
	var got []byte
	buf := make([]byte, 3001)
	last := -gap
	for {
		if z.CanCheckpoint() && len(got)-last >= gap {
			st, out, in := z.Checkpoint(nil)
			if len(st) != z.CheckpointSize() {
				t.Fatalf("checkpoint of %d bytes, CheckpointSize says %d", len(st), z.CheckpointSize())
			}
			if out != int64(len(got)) {
				t.Fatalf("checkpoint at output %d, delivered %d", out, len(got))
			}
			cps = append(cps, cp1{st, out, in})
			last = len(got)
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
	return got, cps
}

// TestCheckpoint1Resume restarts an LZMA1 decoder from checkpoints all
// along a stream (before and after its 64 KiB window wraps, some in the
// middle of a match cut by a read) and checks the rest of the output.
func TestCheckpoint1Resume(t *testing.T) {
	want := genMixed(3, 1<<20)
	comp, p := lzma1Stream(t, want, 64<<10)
	got, cps := takeCheckpoints1(t, comp, p, int64(len(want)), 20000)
	if !bytes.Equal(got, want) {
		t.Fatal("sequential decode differs")
	}
	if len(cps) < 4 {
		t.Fatalf("only %d checkpoints", len(cps))
	}
	var wrapped, midMatch bool
	for _, c := range cps {
		z := new(Reader)
		if err := z.ResetAt(bytes.NewReader(comp[c.in:]), p, int64(len(want)), c.state, c.out, c.in); err != nil {
			t.Fatalf("from %d: %v", c.out, err)
		}
		wrapped = wrapped || z.w.full
		midMatch = midMatch || z.d.remLen > 0
		rest, err := io.ReadAll(z)
		if err != nil {
			t.Fatalf("from %d: %v", c.out, err)
		}
		if !bytes.Equal(rest, want[c.out:]) {
			t.Fatalf("from checkpoint at %d: output differs at %d", c.out, diffAt(rest, want[c.out:]))
		}
		z.Close()
	}
	if !wrapped || !midMatch {
		t.Fatalf("checkpoints cover a wrapped window %v, a cut match %v", wrapped, midMatch)
	}
}

// TestCheckpoint1Refused: a state that does not fit the stream fails
// with ErrCorrupt (never a panic, never a decoder that reads outside its
// window): cut, other properties, coder values and positions out of
// range, a distance beyond the history, probabilities no decoder has.
func TestCheckpoint1Refused(t *testing.T) {
	want := genMixed(4, 300<<10)
	comp, p := lzma1Stream(t, want, 64<<10)
	_, cps := takeCheckpoints1(t, comp, p, int64(len(want)), 30000)
	c := cps[len(cps)/2]
	size := int64(len(want))
	set32 := func(off int, v uint32) func([]byte) {
		return func(b []byte) { b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24) }
	}
	cases := map[string]func([]byte) []byte{
		"empty":   func(b []byte) []byte { return b[:0] },
		"cut":     func(b []byte) []byte { return b[:len(b)-1] },
		"version": func(b []byte) []byte { b[0] = 9; return b },
		"lc":      func(b []byte) []byte { b[1]++; return b },
		"full":    func(b []byte) []byte { b[4] = 2; return b },
		"state":   func(b []byte) []byte { set32(5, 12)(b); return b },
		"rep0":    func(b []byte) []byte { b[5] = 8; set32(9, 1<<30)(b); return b },
		"range":   func(b []byte) []byte { set32(25, 1000)(b); return b },
		"code":    func(b []byte) []byte { set32(29, 0xFFFFFFFF)(b); return b },
		"remLen":  func(b []byte) []byte { set32(33, 274)(b); return b },
		"wpos":    func(b []byte) []byte { b[45] ^= 1; return b },
		"prob0":   func(b []byte) []byte { b[checkpoint1Head], b[checkpoint1Head+1] = 0, 0; return b },
		"prob":    func(b []byte) []byte { b[checkpoint1Head+1] = 0x08; return b },
	}
	for name, f := range cases {
		st := f(append([]byte(nil), c.state...))
		z := new(Reader)
		err := z.ResetAt(bytes.NewReader(comp[c.in:]), p, size, st, c.out, c.in)
		if !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
		if _, rerr := z.Read(make([]byte, 10)); rerr == nil {
			t.Errorf("%s: read after a refused checkpoint succeeded", name)
		}
		z.Close()
	}
	// The output offset must agree with the window.
	z := new(Reader)
	if err := z.ResetAt(bytes.NewReader(comp[c.in:]), p, size, c.state, c.out+1, c.in); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("shifted output offset: %v", err)
	}
	z.Close()
}

// FuzzCheckpoint1 feeds arbitrary states to ResetAt over a real stream:
// it fails or decodes, never panics, never reads out of its window.
func FuzzCheckpoint1(f *testing.F) {
	want := genMixed(5, 200<<10)
	var comp bytes.Buffer
	w, _ := NewWriter(&comp, Level(3), DictSize(64<<10), KnownSize(int64(len(want))))
	w.Write(want)
	w.Close()
	p := w.Props()
	z, _ := NewReader(bytes.NewReader(comp.Bytes()), p, int64(len(want)))
	buf := make([]byte, 7777)
	for i := 0; ; i++ {
		if z.CanCheckpoint() && i%5 == 1 {
			st, out, in := z.Checkpoint(nil)
			f.Add(st, out, in)
		}
		if _, err := z.Read(buf); err != nil {
			break
		}
	}
	z.Close()
	f.Fuzz(func(t *testing.T, st []byte, out, in int64) {
		if in < 0 || in > int64(comp.Len()) {
			return
		}
		z := new(Reader)
		defer z.Close()
		if err := z.ResetAt(bytes.NewReader(comp.Bytes()[in:]), p, int64(len(want)), st, out, in); err != nil {
			return
		}
		io.Copy(io.Discard, z)
	})
}

// TestCheckpointFromResumed: a checkpoint taken by a decoder that was
// itself resumed from one names the same input offset as the sequential
// decoder's at that point (offsets count from the stream's start), and
// the same state, for LZMA1 and LZMA2.
func TestCheckpointFromResumed(t *testing.T) {
	want := genMixed(6, 600<<10)
	t.Run("lzma", func(t *testing.T) {
		comp, p := lzma1Stream(t, want, 64<<10)
		_, cps := takeCheckpoints1(t, comp, p, int64(len(want)), 1)
		if len(cps) < 3 {
			t.Fatalf("%d checkpoints", len(cps))
		}
		a, b := cps[0], cps[len(cps)-1]
		z := new(Reader)
		defer z.Close()
		if err := z.ResetAt(bytes.NewReader(comp[a.in:]), p, int64(len(want)), a.state, a.out, a.in); err != nil {
			t.Fatal(err)
		}
		// The sequential reads were 3001 bytes; so are these, from a
		// checkpoint that the sequential decoder took after whole reads.
		buf := make([]byte, 3001)
		for z.Total() < b.out || !z.CanCheckpoint() {
			if _, err := z.Read(buf[:min(int64(len(buf)), b.out-z.Total()+int64(len(buf)))]); err != nil {
				t.Fatal(err)
			}
			if z.Total() > b.out {
				t.Skip("the resumed decoder's steps do not meet the checkpoint")
			}
		}
		st, out, in := z.Checkpoint(nil)
		if out != b.out || in != b.in || !bytes.Equal(st, b.state) {
			t.Fatalf("resumed decoder's checkpoint at out %d in %d (state equal %v), sequential at %d in %d", out, in, bytes.Equal(st, b.state), b.out, b.in)
		}
	})
	t.Run("lzma2", func(t *testing.T) {
		var comp bytes.Buffer
		w, err := NewWriter2(&comp, Level(3), DictSize(64<<10))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(want)
		w.Close()
		const dict = 64 << 10
		z, _ := NewReader2(bytes.NewReader(comp.Bytes()), dict, int64(len(want)))
		var ins, outs []int64
		var states [][]byte
		buf := make([]byte, 4096)
		for {
			if z.CanCheckpoint() && z.Total() > 0 {
				st, out, in := z.Checkpoint(nil)
				states, outs, ins = append(states, st), append(outs, out), append(ins, in)
			}
			if _, err := z.Read(buf); err != nil {
				break
			}
		}
		z.Close()
		if len(outs) < 3 {
			t.Fatalf("%d checkpoints", len(outs))
		}
		z2 := new(Reader2)
		defer z2.Close()
		if err := z2.ResetAt(bytes.NewReader(comp.Bytes()[ins[0]:]), dict, int64(len(want)), states[0], outs[0], ins[0]); err != nil {
			t.Fatal(err)
		}
		k := 1
		for k < len(outs) {
			if z2.CanCheckpoint() && z2.Total() == outs[k] {
				st, out, in := z2.Checkpoint(nil)
				if out != outs[k] || in != ins[k] || !bytes.Equal(st, states[k]) {
					t.Fatalf("checkpoint %d from the resumed decoder: out %d in %d, sequential out %d in %d", k, out, in, outs[k], ins[k])
				}
				k++
			}
			if _, err := z2.Read(buf); err != nil {
				break
			}
		}
		if k < len(outs) {
			t.Fatalf("resumed decoder met %d of %d checkpoints", k, len(outs))
		}
	})
}
