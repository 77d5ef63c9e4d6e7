package deflate

import (
	"bufio"
	"bytes"
	"compress/flate"
	"io"
	"math/rand/v2"
	"testing"
)

// TestCheckpointResume pauses a decoder every 20 KiB of output, takes a
// checkpoint at each block boundary reached, and checks that a decoder
// resumed from each one (input from the checkpoint's byte, its bit
// offset skipped) produces the rest of the stream exactly: for a
// peekable source and an exact (io.ByteReader) one, with dynamic,
// fixed and stored blocks.
func TestCheckpointResume(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var want []byte
	for len(want) < 600<<10 {
		switch r.IntN(3) {
		case 0:
			for range 2000 {
				want = append(want, "abcdefghij"[r.IntN(10)])
			}
		case 1:
			b := make([]byte, 3000)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			want = append(want, b...)
		case 2:
			want = append(want, bytes.Repeat([]byte("the same text again "), 200)...)
		}
	}
	var comp bytes.Buffer
	for _, level := range []int{flate.BestSpeed, flate.HuffmanOnly, flate.BestCompression} {
		comp.Reset()
		w, _ := flate.NewWriter(&comp, level)
		for off := 0; off < len(want); off += 7000 {
			w.Write(want[off:min(len(want), off+7000)])
			if off%70000 == 0 {
				w.Flush() // an empty stored block: boundaries on whole bytes too
			}
		}
		w.Close()
		for _, exact := range []bool{false, true} {
			var src io.Reader = bufio.NewReader(bytes.NewReader(comp.Bytes()))
			if exact {
				src = &byteReader{r: bytes.NewReader(comp.Bytes())}
			}
			z := NewReader(src)
			type cp struct {
				state       []byte
				out, inBits int64
			}
			var cps []cp
			var got []byte
			buf := make([]byte, 5000)
			const every = 20 << 10
			z.PauseAt(every)
			for {
				if z.CanCheckpoint() && z.Total() > 0 {
					st, out, in := z.Checkpoint(nil)
					if len(st) != z.CheckpointSize() && len(st) != 2+min(int(out), z.win) {
						t.Fatalf("state of %d bytes", len(st))
					}
					if out != int64(len(got)) {
						t.Fatalf("checkpoint at %d after %d bytes", out, len(got))
					}
					cps = append(cps, cp{st, out, in})
					z.PauseAt(out + every)
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
			if !bytes.Equal(got, want) {
				t.Fatalf("level %d: sequential decode differs", level)
			}
			if len(cps) < 5 {
				t.Fatalf("level %d: %d checkpoints", level, len(cps))
			}
			for _, c := range cps {
				var in io.Reader = bytes.NewReader(comp.Bytes()[c.inBits/8:])
				if exact {
					in = &byteReader{r: in.(*bytes.Reader)}
				}
				z2 := new(Reader)
				if err := z2.ResetAt(in, c.state, c.out, c.inBits); err != nil {
					t.Fatal(err)
				}
				rest, err := io.ReadAll(z2)
				if err != nil {
					t.Fatalf("level %d exact %v from %d: %v", level, exact, c.out, err)
				}
				if !bytes.Equal(rest, want[c.out:]) {
					t.Fatalf("level %d exact %v from %d (bit %d): differs", level, exact, c.out, c.inBits)
				}
				z2.Close()
			}
		}
	}
}
