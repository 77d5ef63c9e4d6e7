package bcj

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// codeLike returns n bytes rich in the opcodes the filters look for.
func codeLike(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	hot := []byte{0xE8, 0xE9, 0x0F, 0x80, 0x00, 0xFF, 0xEB, 0xF0, 0xF8, 0x48, 0x40, 0x7F, 0x94, 0x90, 0xEF, 0x17, 0x01, 0x10, 0xC0}
	b := make([]byte, n)
	for i := range b {
		if r.IntN(2) == 0 {
			b[i] = hot[r.IntN(len(hot))]
		} else {
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

// TestChunking checks each filter gives the same output however its
// input is split: instructions straddling buffer refills must be
// converted exactly once.
func TestChunking(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	in := codeLike(200<<10, 7)
	for k := X86; k <= Swap4; k++ {
		t.Run(k.String(), func(t *testing.T) {
			whole, err := io.ReadAll(NewReader(bytes.NewReader(in), k, 0, 4))
			if err != nil {
				t.Fatal(err)
			}
			if len(whole) != len(in) {
				t.Fatalf("got %d bytes, want %d", len(whole), len(in))
			}
			if k != Delta && bytes.Equal(whole, in) {
				t.Fatal("filter changed nothing: test data does not exercise it")
			}
			for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader, iotest.DataErrReader} {
				got, err := io.ReadAll(NewReader(wrap(bytes.NewReader(in)), k, 0, 4))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, whole) {
					t.Fatal("output depends on input chunking")
				}
			}
		})
	}
}

// TestDelta checks Delta against its definition.
func TestDelta(t *testing.T) {
	in := codeLike(5000, 3)
	for _, dist := range []int{1, 2, 4, 7, 256} {
		got, _ := io.ReadAll(NewReader(bytes.NewReader(in), Delta, 0, dist))
		want := make([]byte, len(in))
		for i := range in {
			want[i] = in[i]
			if i >= dist {
				want[i] += want[i-dist]
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("dist %d: wrong output", dist)
		}
	}
}

// TestSwap checks Swap2 and Swap4 against their definition, a trailing
// partial group passing unchanged, and that the Writer is the inverse.
func TestSwap(t *testing.T) {
	in := []byte("0123456789abcdefg")
	for _, c := range []struct {
		k    Kind
		want string
	}{{Swap2, "1032547698badcfeg"}, {Swap4, "32107654ba98fedcg"}} {
		for n := range len(in) + 1 {
			got, err := io.ReadAll(NewReader(iotest.OneByteReader(bytes.NewReader(in[:n])), c.k, 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			g := map[Kind]int{Swap2: 2, Swap4: 4}[c.k]
			want := c.want[:n-n%g] + string(in[n-n%g:n])
			if string(got) != want {
				t.Fatalf("%v of %q: got %q, want %q", c.k, in[:n], got, want)
			}
			var enc bytes.Buffer
			w := NewWriter(&enc, c.k, 0, 0)
			if _, err := w.Write([]byte(want)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if enc.String() != string(in[:n]) {
				t.Fatalf("%v encodes %q to %q, want %q", c.k, want, enc.Bytes(), in[:n])
			}
		}
	}
}
