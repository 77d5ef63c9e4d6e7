package bcj

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// choppy hands out its data in random short reads, so a Reader's fills
// end at many different points.
type choppy struct {
	b   []byte
	rng *rand.Rand
}

func (c *choppy) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.rng.IntN(3000))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// TestCheckpointResume: for every filter, a Reader restarted from the
// state taken at any point where it can take one (the input resuming
// Held bytes after its output) gives the rest of a full decode,
// x86's mask state and the held-back bytes included.
func TestCheckpointResume(t *testing.T) {
	src := codeLike(300<<10, 7)
	// dense: E8 next to E8, 00 and FF, where x86's mask state decides
	dense := make([]byte, 300<<10)
	r := rand.New(rand.NewPCG(9, 9))
	for i := range dense {
		dense[i] = []byte{0xE8, 0xE8, 0x00, 0xFF, byte(r.Uint32())}[r.IntN(5)]
	}
	for k := X86; k <= Swap4; k++ {
		t.Run(k.String(), func(t *testing.T) {
			src := src
			if k == X86 {
				src = dense
			}
			want, err := io.ReadAll(NewReader(bytes.NewReader(src), k, 0x1000, 4))
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(k), 1))
			f := NewReader(&choppy{src, rng}, k, 0x1000, 4)
			defer f.Close()
			var pos int64
			buf := make([]byte, 7000)
			taken, held, masked := 0, 0, 0
			last := int64(-1)
			for {
				if f.CanCheckpoint() && pos != last {
					last = pos
					st := f.AppendState(nil)
					if len(st) != f.StateSize() || len(st) > MaxStateSize {
						t.Fatalf("state of %d bytes, StateSize %d", len(st), f.StateSize())
					}
					s, err := ParseState(k, st)
					if err != nil {
						t.Fatal(err)
					}
					if s.Held() != f.Held() || s.IP() != 0x1000+uint32(pos) {
						t.Fatalf("held %d/%d ip %#x at %d", s.Held(), f.Held(), s.IP(), pos)
					}
					held = max(held, s.Held())
					if st[5] != 0 {
						masked++
					}
					g := new(Reader)
					g.ResetState(bytes.NewReader(src[pos+int64(s.Held()):]), &s, 4)
					rest, err := io.ReadAll(g)
					g.Close()
					if err != nil || !bytes.Equal(rest, want[pos:]) {
						t.Fatalf("resumed at %d (held %d): %v, bytes differ", pos, s.Held(), err)
					}
					taken++
				}
				n, err := f.Read(buf[:1+rng.IntN(len(buf)-1)])
				if !bytes.Equal(buf[:n], want[pos:pos+int64(n)]) {
					t.Fatalf("bytes differ at %d", pos)
				}
				pos += int64(n)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if taken < 5 || k != Delta && k != ARM64 && held == 0 || k == X86 && masked == 0 {
				t.Fatalf("%d checkpoints, at most %d bytes held, %d with an x86 mask", taken, held, masked)
			}
		})
	}
}

// TestParseStateRejects: states of another filter, with a bad x86
// mask, too many held bytes or a wrong length are ErrCorrupt.
func TestParseStateRejects(t *testing.T) {
	f := NewReader(bytes.NewReader(codeLike(20000, 3)), X86, 0, 0)
	defer f.Close()
	io.ReadFull(f, make([]byte, 100))
	for !f.CanCheckpoint() {
		f.Read(make([]byte, 1))
	}
	good := f.AppendState(nil)
	if _, err := ParseState(X86, good); err != nil {
		t.Fatal(err)
	}
	d := NewReader(bytes.NewReader(codeLike(20000, 3)), Delta, 0, 3)
	defer d.Close()
	io.ReadFull(d, make([]byte, 100))
	for !d.CanCheckpoint() {
		d.Read(make([]byte, 1))
	}
	goodDelta := d.AppendState(nil)
	if _, err := ParseState(Delta, goodDelta); err != nil {
		t.Fatal(err)
	}
	mod := func(b []byte, fn func([]byte) []byte) []byte { return fn(append([]byte(nil), b...)) }
	bad := map[string][]byte{
		"other kind": mod(good, func(b []byte) []byte { b[0] = byte(ARM); return b }),
		"x86 state":  mod(good, func(b []byte) []byte { b[5] = 8; return b }),
		"held":       mod(good, func(b []byte) []byte { b[6] = MaxHeld + 1; return append(b, make([]byte, MaxHeld+1)...)[:7+MaxHeld+1] }),
		"short":      mod(good, func(b []byte) []byte { return b[:len(b)-1] }),
		"long":       mod(good, func(b []byte) []byte { return append(b, 0) }),
		"empty":      nil,
	}
	for name, b := range bad {
		if _, err := ParseState(X86, b); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, b := range map[string][]byte{
		"delta held":  mod(goodDelta, func(b []byte) []byte { b[6] = 1; return append(b, 0) }),
		"delta short": goodDelta[:len(goodDelta)-1],
		"delta mask":  mod(goodDelta, func(b []byte) []byte { b[5] = 1; return b }),
	} {
		if _, err := ParseState(Delta, b); !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
