package lzma

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// TestCheckpointAfterStoredChunks: an LZMA2 stream that starts with
// uncompressed chunks (7-Zip stores incompressible data so) has had no
// properties yet at the boundary between them; a checkpoint taken there
// restores and decodes the rest (7z folders of noise before code).
func TestCheckpointAfterStoredChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, 3000)
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	var s []byte
	s = append(s, 0x01, 0x03, 0xE7) // uncompressed, dictionary reset, 1000 bytes
	s = append(s, want[:1000]...)
	s = append(s, 0x02, 0x07, 0xCF) // uncompressed, 2000 bytes
	s = append(s, want[1000:]...)
	s = append(s, 0x00)
	z, err := NewReader2(bytes.NewReader(s), 1<<16, int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	buf := make([]byte, 1000)
	if _, err := io.ReadFull(z, buf); err != nil {
		t.Fatal(err)
	}
	z.Read(buf[:0]) // reach the chunk boundary
	if !z.CanCheckpoint() {
		t.Fatal("no checkpoint at the boundary")
	}
	n := z.CheckpointSize()
	st, out, in := z.Checkpoint(make([]byte, 0, n))
	if len(st) > n || out != 1000 || in != 1003 {
		t.Fatalf("state %d/%d at %d, %d", len(st), n, out, in)
	}
	y := new(Reader2)
	if err := y.ResetAt(bytes.NewReader(s[in:]), 1<<16, int64(len(want)), st, out, in); err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	rest, err := io.ReadAll(y)
	if err != nil || !bytes.Equal(rest, want[1000:]) {
		t.Fatalf("%v, %d bytes", err, len(rest))
	}
}
