package rarbits

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// fakeDec serves chunks one step at a time, then end.
type fakeDec struct {
	Stream
	chunks [][]byte
	end    error
	steps  int
}

func newFake(end error, chunks ...[]byte) *fakeDec {
	f := &fakeDec{chunks: chunks, end: end}
	f.Init(f, "fake")
	return f
}

func (f *fakeDec) Step() {
	f.steps++
	if len(f.chunks) == 0 {
		f.Err = f.end
		return
	}
	f.Out, f.chunks = f.chunks[0], f.chunks[1:]
}

func TestStreamRead(t *testing.T) {
	f := newFake(io.EOF, []byte("abc"), []byte{}, []byte("defg"))
	var got []byte
	p := make([]byte, 2)
	for {
		n, err := f.Read(p)
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if string(got) != "abcdefg" {
		t.Errorf("read %q", got)
	}
	// Sticky: the error again, without stepping.
	steps := f.steps
	if _, err := f.Read(p); err != io.EOF || f.steps != steps {
		t.Errorf("after end: %v, %d more steps", err, f.steps-steps)
	}
}

type shortWriter struct {
	bytes.Buffer
	fail error
}

func (w *shortWriter) Write(p []byte) (int, error) {
	if w.fail != nil && w.Len() >= 4 {
		return 0, w.fail
	}
	return w.Buffer.Write(p[:1]) // one byte at a time, no error
}

func TestStreamWriteTo(t *testing.T) {
	f := newFake(io.EOF, []byte("abc"), []byte("defg"))
	var w shortWriter
	n, err := f.WriteTo(&w)
	if err != nil || n != 7 || w.String() != "abcdefg" {
		t.Errorf("WriteTo = %d, %v, %q", n, err, w.String())
	}

	bad := errors.New("corrupt")
	f = newFake(bad, []byte("ab"))
	w = shortWriter{}
	if n, err := f.WriteTo(&w); err != bad || n != 2 {
		t.Errorf("decoder error: %d, %v", n, err)
	}

	wfail := errors.New("disk full")
	f = newFake(io.EOF, []byte("abcdefgh"))
	w = shortWriter{fail: wfail}
	if n, err := f.WriteTo(&w); err != wfail || n != 4 || len(f.Out) != 4 {
		t.Errorf("writer error: %d, %v, %d left", n, err, len(f.Out))
	}
}

func TestStreamNoAllocs(t *testing.T) {
	chunk := make([]byte, 4096)
	f := newFake(io.EOF)
	p := make([]byte, 1000)
	two, one := [][]byte{chunk, chunk}, [][]byte{chunk}
	if n := testing.AllocsPerRun(50, func() {
		f.chunks, f.Err = two, nil
		for {
			if _, err := f.Read(p); err != nil {
				break
			}
		}
		f.chunks, f.Err = one, nil
		f.WriteTo(io.Discard)
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

// TestStreamContinue: a solid entry drains the unread rest of the one
// before it, fails with the error the drain met, or with ErrCorrupt when
// the one before had already failed; a non-solid entry never looks back.
func TestStreamContinue(t *testing.T) {
	f := newFake(io.EOF, []byte("abc"))
	f.Begin(0, 3, false)
	if err := f.Continue(true); err != nil || f.steps == 0 || f.Out != nil {
		t.Errorf("drain to the end: %v after %d steps, Out %q", err, f.steps, f.Out)
	}
	bad := errs.Truncated("input ends")
	f = newFake(bad, []byte("abc"))
	f.Begin(0, 10, false)
	if err := f.Continue(true); err != bad {
		t.Errorf("drain that fails: %v, want %v", err, bad)
	}
	if err := f.Continue(true); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("after a broken entry: %v, want ErrCorrupt", err)
	}
	if err := f.Continue(false); err != nil {
		t.Errorf("non-solid after a broken entry: %v", err)
	}
	f = newFake(io.EOF)
	if err := f.Continue(true); err != nil || f.steps != 0 {
		t.Errorf("solid without a stream: %v, %d steps", err, f.steps)
	}
}

// TestStreamBegin: positions and window of fresh and solid entries; a
// solid entry that needs a bigger window keeps the history at the same
// positions; Flush and Emit stop at the entry's end.
func TestStreamBegin(t *testing.T) {
	f := newFake(io.EOF)
	defer f.Release()
	if !f.Begin(1<<30, 100, false) || f.Dict != MaxWindow || len(f.Win) != MinWindow || f.End != 100 {
		t.Fatalf("fresh: dict %d, window %d, end %d", f.Dict, len(f.Win), f.End)
	}
	for i := range 5000 {
		f.Win[int64(i)&f.Mask] = byte(i % 251)
	}
	f.Pos = 5000
	if f.Begin(1<<20, 1<<16, true) {
		t.Fatal("solid entry reported a fresh stream")
	}
	if f.Start != 5000 || f.Wr != 5000 || f.End != 5000+1<<16 || len(f.Win) != 1<<17 {
		t.Fatalf("solid: start %d wr %d end %d window %d", f.Start, f.Wr, f.End, len(f.Win))
	}
	for i := 5000 - MinWindow; i < 5000; i++ {
		if f.Win[int64(i)&f.Mask] != byte(i%251) {
			t.Fatalf("position %d lost in the bigger window", i)
		}
	}
	if f.Begin(0, -1, true); f.End != math.MaxInt64 {
		t.Errorf("unknown size: end %d", f.End)
	}
	f.Begin(0, 10, false)
	f.Pos = 20
	f.Flush(f.Pos)
	if len(f.Out) != 10 || f.Wr != 20 {
		t.Errorf("Flush past the end: %d bytes out, wr %d", len(f.Out), f.Wr)
	}
	f.Emit(make([]byte, 4), 30)
	if f.Out != nil {
		t.Errorf("Emit past the end: %d bytes", len(f.Out))
	}
	f.Release()
	if _, err := f.Read(make([]byte, 1)); !errors.Is(err, errs.ErrCorrupt) || f.Win != nil {
		t.Errorf("Read after Release: %v", err)
	}
}
