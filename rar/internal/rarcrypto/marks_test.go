package rarcrypto

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// oldReader is Reader15 or Reader20.
type oldReader interface {
	io.Reader
	StateAt(pos int64) (int64, []byte, bool)
	Resume(pos int64, st []byte) error
}

// TestMarksResume: for both old ciphers, a reader resumed at any mark
// from the state StateAt gave there (read in odd-sized pieces, as a
// decoder's buffer reads) decrypts the rest of the stream as the
// uninterrupted reader does; marks further back than Marks are gone; a
// state of the wrong length or a mark off MarkSpan is ErrCorrupt; and a
// RAR 2.0 state is the same whatever the password (it comes from the
// ciphertext only).
func TestMarksResume(t *testing.T) {
	const n = 200000
	ct := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range ct {
		ct[i] = byte(rng.Uint32())
	}
	for _, v := range []int{15, 20} {
		mk := func(pw string) oldReader {
			if v == 15 {
				return NewReader15(bytes.NewReader(ct), NewCipher15(pw))
			}
			return NewReader20(bytes.NewReader(ct), NewCipher20(pw))
		}
		want, _ := io.ReadAll(mk("pw"))
		r := mk("pw")
		other := mk("another")
		var got []byte
		var states [][]byte
		reads := 0
		buf := make([]byte, 7777)
		for {
			k, err := r.Read(buf[:1+rng.IntN(len(buf)-1)])
			got = append(got, buf[:k]...)
			io.ReadFull(other, make([]byte, k))
			if _, _, ok := r.StateAt(int64(len(got)) - Marks*MarkSpan - 1); ok && len(got) > Marks*MarkSpan+1 {
				t.Fatalf("v%d: a mark %d positions back is still held", v, Marks)
			}
			// The marks up to 64 KiB back are held (checked after every
			// fourth read: each check deciphers the rest of the stream).
			reads++
			for _, back := range []int64{0, 1, 64 << 10} {
				if reads%4 != 0 {
					break
				}
				at := int64(len(got)) - 1 - back
				c, st, ok := r.StateAt(at)
				if at < 0 {
					continue
				}
				if !ok || c > at || at-c >= MarkSpan {
					t.Fatalf("v%d: no mark for %d (%d)", v, at, c)
				}
				if v == 20 {
					if _, st2, _ := other.StateAt(at); !bytes.Equal(st, st2) {
						t.Fatalf("v20: the state at %d depends on the password", c)
					}
				}
				var s2 oldReader = NewReader20(bytes.NewReader(ct[c:]), NewCipher20("pw"))
				if v == 15 {
					s2 = NewReader15(bytes.NewReader(ct[c:]), NewCipher15("pw"))
				}
				if err := s2.Resume(c, st); err != nil {
					t.Fatal(err)
				}
				rest, _ := io.ReadAll(s2)
				if !bytes.Equal(rest, want[c:]) {
					t.Fatalf("v%d: resumed at %d: bytes differ", v, c)
				}
				states = append(states, st)
			}
			if err == io.EOF {
				break
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("v%d: piecewise read differs", v)
		}
		if err := r.Resume(MarkSpan+1, states[0]); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("v%d: mark off the span: %v", v, err)
		}
		if err := r.Resume(0, append(states[0], 0)); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("v%d: long state: %v", v, err)
		}
	}
}
