package testutil

import (
	"bytes"
	"io"
)

// CheckpointDecoder is a decoder that takes checkpoints where it can and
// pauses where it is told to (the ZIP legacy decoders' shape).
type CheckpointDecoder interface {
	io.Reader
	CanCheckpoint() bool
	CheckpointSize() int
	Checkpoint(dst []byte) (state []byte, out, in int64)
	Total() int64
	PauseAt(out int64)
}

// Taken is a checkpoint TakeCheckpoints took.
type Taken struct {
	State   []byte
	Out, In int64
}

// TakeCheckpoints reads z to its end through small reads, pausing it
// every every bytes of output and taking a checkpoint wherever one can
// be taken (checking Total and CheckpointSize); it returns them and the
// output.
func TakeCheckpoints(tb TB, z CheckpointDecoder, every int64) ([]Taken, []byte) {
	tb.Helper()
	var out bytes.Buffer
	var cps []Taken
	next := every
	z.PauseAt(next)
	buf := make([]byte, 1000)
	for {
		if z.CanCheckpoint() && int64(out.Len()) >= next {
			if z.Total() != int64(out.Len()) {
				tb.Fatalf("Total %d after %d bytes", z.Total(), out.Len())
			}
			st, o, in := z.Checkpoint(nil)
			if len(st) != z.CheckpointSize() || o != int64(out.Len()) {
				tb.Fatalf("state of %d bytes (CheckpointSize %d) at %d", len(st), z.CheckpointSize(), o)
			}
			cps = append(cps, Taken{st, o, in})
			next = (o/every + 1) * every
			z.PauseAt(next)
		}
		n, err := z.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return cps, out.Bytes()
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}
