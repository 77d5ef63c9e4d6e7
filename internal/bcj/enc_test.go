package bcj

import (
	"bytes"
	"io"
	"testing"
)

// TestWriterRoundTrip encodes with Writer in uneven writes and decodes
// with Reader, for every filter with an encoder: the result must be the
// input, and (for the branch filters) the encoded stream must differ
// from it, so an encoder that converts nothing fails.
func TestWriterRoundTrip(t *testing.T) {
	n := 300 << 10
	if testing.Short() {
		n = 70 << 10
	}
	in := codeLike(n, 11)
	for _, k := range []Kind{X86, ARM, ARMT, ARM64, PPC, SPARC, Delta} {
		for _, dist := range []int{1, 4, 256} {
			if k != Delta && dist != 4 {
				continue
			}
			var enc bytes.Buffer
			w := NewWriter(&enc, k, 0, dist)
			for i, step := 0, 1; i < len(in); step = step*3%7919 + 1 {
				j := min(len(in), i+step)
				if _, err := w.Write(in[i:j]); err != nil {
					t.Fatal(err)
				}
				i = j
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if enc.Len() != len(in) {
				t.Fatalf("%v: %d bytes encoded from %d", k, enc.Len(), len(in))
			}
			if bytes.Equal(enc.Bytes(), in) {
				t.Fatalf("%v: encoder changed nothing", k)
			}
			got, err := io.ReadAll(NewReader(bytes.NewReader(enc.Bytes()), k, 0, dist))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, in) {
				i := 0
				for i < len(got) && i < len(in) && got[i] == in[i] {
					i++
				}
				t.Fatalf("%v dist %d: round trip differs at %d", k, dist, i)
			}
		}
	}
}

func TestWriterChunkingIndependent(t *testing.T) {
	in := codeLike(100<<10, 5)
	for _, k := range []Kind{X86, ARM64} {
		var a, b bytes.Buffer
		w := NewWriter(&a, k, 0, 1)
		w.Write(in)
		w.Close()
		w.Reset(&b, k, 0, 1)
		for i := range in {
			w.Write(in[i : i+1])
		}
		w.Close()
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%v: output depends on write sizes", k)
		}
	}
}

func TestWriterNoEncoder(t *testing.T) {
	w := NewWriter(io.Discard, IA64, 0, 0)
	if _, err := w.Write([]byte{1}); err != ErrWriterKind {
		t.Fatalf("IA64 Write: %v", err)
	}
	w.Close()
}
