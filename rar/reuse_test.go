package rar

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"testing"
)

// TestClosedHandleAfterReuse: the entryReader a closed handle left serves
// the next Open, and the old handle still fails with fs.ErrClosed: it
// never reads the next entry's data, and closing it again does not close
// the new one.
func TestClosedHandleAfterReuse(t *testing.T) {
	for _, rel := range []string{"rar/rar5_m3.rar", "rar/rar5_solid.rar", "rar/rar5_hp_solid.rar"} {
		t.Run(rel, func(t *testing.T) {
			x := openSums(t, rel)
			defer x.a.Close()
			if len(x.want) < 2 {
				t.Fatalf("%d entries, want 2 or more", len(x.want))
			}
			old, err := x.a.Open(0)
			if err != nil {
				t.Fatal(err)
			}
			body := old.(*reader).r
			io.CopyN(io.Discard, old, 1)
			old.Close()
			i := 1
			for i < len(x.size) && x.size[i] == 0 {
				i++
			}
			cur, err := x.a.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			defer cur.Close()
			if cur.(*reader).r != body {
				t.Fatal("the closed entry's reader was not reused")
			}
			var p [16]byte
			if n, err := old.Read(p[:]); n != 0 || !errors.Is(err, fs.ErrClosed) {
				t.Errorf("closed handle: %d bytes, %v", n, err)
			}
			if _, err := old.(io.WriterTo).WriteTo(io.Discard); !errors.Is(err, fs.ErrClosed) {
				t.Errorf("closed handle WriteTo: %v", err)
			}
			old.Close()
			b, err := io.ReadAll(cur)
			if err != nil || sha256.Sum256(b) != x.want[i] {
				t.Errorf("entry %d after the old handle's second Close: %d bytes, %v", i, len(b), err)
			}
		})
	}
}
