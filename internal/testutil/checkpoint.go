package testutil

import (
	"bytes"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
)

// CheckpointDecoder is a decoder that takes checkpoints where it can and
// pauses where it is told to (the ZIP legacy decoders' shape).
type CheckpointDecoder = engine.StreamCheckpointer

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

// EntryCheckpointer is a decoder of a run of entries that calls fn at
// the output offsets fn asks for, where a checkpoint can be taken (the
// RAR decoders' shape); D is its own pointer type.
type EntryCheckpointer[D any] interface {
	io.Reader
	OnCheckpoint(next int64, fn func(D) int64)
	Checkpoint(dst []byte) []byte
	CheckpointSize() int
	EntryOffset() int64
	InputBits() int64
}

// EntryCP is a checkpoint taken in a test: its entry, the offset in the
// entry's output, the input bit position and the state.
type EntryCP struct {
	Entry int
	Off   int64
	Bits  int64
	State []byte
}

// DecodeEntries decodes entries 0 to n-1 with d, which reset points at
// entry i (false: i is skipped, its output nil), in reads of 777 bytes,
// taking a checkpoint every `every` bytes of each entry's output
// (math.MaxInt64: none) and checking CheckpointSize; it returns the
// outputs and the checkpoints.
func DecodeEntries[D EntryCheckpointer[D]](t TB, d D, n int, every int64, reset func(i int) (bool, error)) ([][]byte, []EntryCP) {
	t.Helper()
	var outs [][]byte
	var cps []EntryCP
	buf := make([]byte, 777)
	for i := range n {
		ok, err := reset(i)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			outs = append(outs, nil)
			continue
		}
		d.OnCheckpoint(every, func(d D) int64 {
			st := d.Checkpoint(nil)
			if d.CheckpointSize() != len(st) {
				t.Fatal("CheckpointSize disagrees")
			}
			cps = append(cps, EntryCP{Entry: i, Off: d.EntryOffset(), Bits: d.InputBits(), State: st})
			return (d.EntryOffset()/every + 1) * every
		})
		var got []byte
		for {
			n, err := d.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
		}
		outs = append(outs, got)
	}
	return outs, cps
}

// TakeEntryCP is the checkpoint d can take now, in entry i.
func TakeEntryCP[D EntryCheckpointer[D]](i int, d D) EntryCP {
	return EntryCP{Entry: i, Off: d.EntryOffset(), Bits: d.InputBits(), State: d.Checkpoint(nil)}
}

// WithState is cp with another state.
func (cp EntryCP) WithState(st []byte) EntryCP {
	cp.State = st
	return cp
}
