package lzma

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// TestGrowWindow: with GrowWindow, a stream declared far larger than it
// is allocates a window for what it produces, not for the declaration.
func TestGrowWindow(t *testing.T) {
	data := bytes.Repeat([]byte("grow "), 20)
	stream := append([]byte{1, 0, byte(len(data) - 1)}, data...)
	stream = append(stream, 0)
	const declared = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	z, err := NewReader2(bytes.NewReader(stream), 1<<30, declared, GrowWindow())
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(z)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Error("a stream shorter than its size read without error")
	}
	if !bytes.Equal(got, data) {
		t.Errorf("got %q", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("allocated %d bytes for a %d-byte stream declared as %d", n, len(data), declared)
	}
	z.Close()
}

// TestGrowSteps: a growing window quadruples, and takes its final size in
// one step of up to sixteenfold, so the window it outgrows last (live
// beside the new one during the copy) is at most a sixteenth of the
// final one; the history survives every step.
func TestGrowSteps(t *testing.T) {
	const final = 256 << 20
	var w window
	w.reset(final, true)
	defer w.release()
	var sizes []int
	for len(w.buf) < final {
		sizes = append(sizes, len(w.buf))
		w.buf[len(w.buf)-1] = byte(len(sizes))
		w.pos, w.rd = len(w.buf), len(w.buf)
		w.room()
		if w.buf[sizes[len(sizes)-1]-1] != byte(len(sizes)) {
			t.Fatalf("history lost growing from %d", sizes[len(sizes)-1])
		}
	}
	last := sizes[len(sizes)-1]
	if last > final/16 || last < final/64 {
		t.Errorf("grew to %d from %d (steps %v); want the last step from between 1/64 and 1/16 of it", final, last, sizes)
	}
	for i := 1; i < len(sizes); i++ {
		if sizes[i] != 4*sizes[i-1] {
			t.Errorf("steps %v: not fourfold before the last", sizes)
		}
	}
}
