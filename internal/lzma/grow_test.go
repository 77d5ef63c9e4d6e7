package lzma

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/testutil"
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
	pool.Release() // a kept 256 MiB window would be taken at once
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

// TestGrowWarm: a warm decode of a stream without a size (an xz block
// that declares none) takes the pooled final window at its first growth
// instead of allocating 256 KiB, 1 MiB... windows again: it allocates
// almost nothing.
func TestGrowWarm(t *testing.T) {
	if testing.Short() || testutil.RaceEnabled {
		t.Skip("encodes 3 MiB; counts allocations")
	}
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i*7919>>5) ^ byte(i>>13)
	}
	var enc bytes.Buffer
	w, err := NewWriter2(&enc, Level(1), DictSize(8<<20))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	decode := func() {
		z, err := NewReader2(bytes.NewReader(enc.Bytes()), 8<<20, -1, GrowWindow())
		if err != nil {
			t.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, z); err != nil || n != int64(len(data)) {
			t.Fatalf("decoded %d bytes, %v", n, err)
		}
		z.Close()
	}
	decode()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	decode()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<10 {
		t.Errorf("a warm decode allocated %d bytes", n)
	}
}
