package bzip2

import (
	"bytes"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzCheckpointResume resumes mutated block checkpoints (state, output
// and bit offsets) taken along real multi-block streams, over the real
// stream or a mutated one. It must not panic or hang; errors wrap one
// sentinel, and a resume that decodes without error from the original
// stream and state gives the original bytes.
func FuzzCheckpointResume(f *testing.F) {
	type orig struct {
		data, out []byte
	}
	var streams []orig
	for _, name := range []string{"text-l1.bz2", "concat.bz2", "mixed-7zz.bz2", "text-7zz-mx1.bz2"} {
		data := readFile(f, name)
		z, err := NewReader(bytes.NewReader(data))
		if err != nil {
			f.Fatal(err)
		}
		z.Serial()
		var out bytes.Buffer
		buf := make([]byte, 8191)
		for {
			if z.CanCheckpoint() {
				st, o, in := z.Checkpoint(nil)
				f.Add(uint8(len(streams)), st, o, in, []byte(nil))
			}
			n, err := z.Read(buf)
			out.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Fatal(err)
			}
		}
		z.Close()
		streams = append(streams, orig{data, out.Bytes()})
	}
	f.Fuzz(func(t *testing.T, k uint8, st []byte, out, in int64, patch []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 128<<20)()
		s := streams[int(k)%len(streams)]
		data := s.data
		if len(patch) > 0 {
			// patch: pairs of (offset byte, value) after the checkpoint.
			data = bytes.Clone(data)
			for i := 0; i+1 < len(patch); i += 2 {
				at := max(in/8, 0) + int64(patch[i])*16
				if at < int64(len(data)) {
					data[at] = patch[i+1]
				}
			}
		}
		at := in / 8
		if at < 0 || at > int64(len(data)) {
			at = int64(len(data))
		}
		var z Reader
		defer z.Close()
		if err := z.ResetAt(bytes.NewReader(data[at:]), st, out, in, MaxMemory(Memory(9))); err != nil {
			oneSentinel(t, err)
			return
		}
		got, err := io.ReadAll(io.LimitReader(&z, 4<<20))
		if err != nil {
			oneSentinel(t, err)
			return
		}
		if len(patch) == 0 && out >= 0 && out <= int64(len(s.out)) && bytes.Equal(got, s.out[out:]) {
			return // the original checkpoint
		}
		if len(patch) == 0 && int64(len(got)) < 4<<20 && out >= 0 && out <= int64(len(s.out)) && !bytes.HasSuffix(s.out, got) {
			// Decoded without error from the real stream: the blocks
			// passed their CRCs and the stream CRC, so the state must have
			// been one whose bytes are the stream's from some block on.
			t.Fatalf("resumed without error to %d bytes that end no suffix of the stream", len(got))
		}
	})
}
