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
