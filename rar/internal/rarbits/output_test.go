package rarbits

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// fakeDec serves chunks one step at a time, then end.
type fakeDec struct {
	out    []byte
	err    error
	chunks [][]byte
	end    error
	steps  int
}

func (f *fakeDec) step() {
	f.steps++
	if len(f.chunks) == 0 {
		f.err = f.end
		return
	}
	f.out, f.chunks = f.chunks[0], f.chunks[1:]
}

func TestReadOut(t *testing.T) {
	f := &fakeDec{chunks: [][]byte{[]byte("abc"), {}, []byte("defg")}, end: io.EOF}
	var got []byte
	p := make([]byte, 2)
	for {
		n, err := ReadOut(p, &f.out, &f.err, f.step)
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
	if _, err := ReadOut(p, &f.out, &f.err, f.step); err != io.EOF || f.steps != steps {
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

func TestWriteOut(t *testing.T) {
	f := &fakeDec{chunks: [][]byte{[]byte("abc"), []byte("defg")}, end: io.EOF}
	var w shortWriter
	n, err := WriteOut(&w, &f.out, &f.err, f.step)
	if err != nil || n != 7 || w.String() != "abcdefg" {
		t.Errorf("WriteOut = %d, %v, %q", n, err, w.String())
	}

	bad := errors.New("corrupt")
	f = &fakeDec{chunks: [][]byte{[]byte("ab")}, end: bad}
	w = shortWriter{}
	if n, err := WriteOut(&w, &f.out, &f.err, f.step); err != bad || n != 2 {
		t.Errorf("decoder error: %d, %v", n, err)
	}

	wfail := errors.New("disk full")
	f = &fakeDec{chunks: [][]byte{[]byte("abcdefgh")}, end: io.EOF}
	w = shortWriter{fail: wfail}
	if n, err := WriteOut(&w, &f.out, &f.err, f.step); err != wfail || n != 4 || len(f.out) != 4 {
		t.Errorf("writer error: %d, %v, %d left", n, err, len(f.out))
	}
}

func TestOutputNoAllocs(t *testing.T) {
	chunk := make([]byte, 4096)
	f := &fakeDec{}
	p := make([]byte, 1000)
	two, one := [][]byte{chunk, chunk}, [][]byte{chunk}
	if n := testing.AllocsPerRun(50, func() {
		f.chunks, f.err, f.end = two, nil, io.EOF
		for {
			if _, err := ReadOut(p, &f.out, &f.err, f.step); err != nil {
				break
			}
		}
		f.chunks, f.err = one, nil
		WriteOut(io.Discard, &f.out, &f.err, f.step)
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}
