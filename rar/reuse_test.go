package rar

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
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

// TestReaderCloseReturnsDecryptor: a forward-only Reader takes its AES
// decryptor (4 KiB buffer) from the pool at its first encrypted entry and
// gives it back at Close; the closed Reader then reads nothing, so the
// next Reader, which gets the same decryptor, is not read through it.
func TestReaderCloseReturnsDecryptor(t *testing.T) {
	const rel = "rar/rar5_hp_solid.rar"
	path := filepath.Join("../testdata", rel)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	idx := 0
	open := func() *Reader {
		r, err := NewReader(bytes.NewReader(data), conf.From(config(t, path, testPassword(path))))
		if err != nil {
			t.Fatal(err)
		}
		for idx = 0; ; idx++ { // the first entry with 8 bytes or more
			e, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if e.Size >= 8 {
				return r
			}
		}
	}
	x := open()
	var p [8]byte
	if _, err := io.ReadFull(x, p[:]); err != nil {
		t.Fatal(err)
	}
	cr := x.crypt
	if cr == nil {
		t.Fatal("no decryptor for an encrypted entry")
	}
	x.Close()
	y := open()
	defer y.Close()
	if y.crypt != cr {
		t.Fatal("the decryptor did not go back to the pool at Close")
	}
	if n, _ := x.Read(p[:]); n != 0 {
		t.Errorf("closed Reader read %d bytes", n)
	}
	if n, _ := x.WriteTo(io.Discard); n != 0 {
		t.Errorf("closed Reader wrote %d bytes", n)
	}
	if _, err := x.Next(); err == nil {
		t.Error("Next after Close succeeded")
	}
	want := openSums(t, rel)
	defer want.a.Close()
	b, err := io.ReadAll(y)
	if err != nil || sha256.Sum256(b) != want.want[idx] {
		t.Errorf("the next Reader's first entry: %d bytes, %v", len(b), err)
	}
}

// TestDerive5Cache: the last-key fast path and the map behind it hand
// back the right keys and charge each distinct derivation once.
func TestDerive5Cache(t *testing.T) {
	const lg2 = 4
	per := int64(1<<lg2 + 32)
	cfg, err := conf.New(arc.WithLimits(arc.Limits{MaxKDFRounds: 2 * per}))
	if err != nil {
		t.Fatal(err)
	}
	kr := newKeyring(&cfg)
	a, b, c := []byte("salt-a-0123456789"), []byte("salt-b-0123456789"), []byte("salt-c-0123456789")
	for i, salt := range [][]byte{a, b, a, a, b, a, b} {
		k, err := kr.derive5("pw", salt, lg2)
		if err != nil {
			t.Fatalf("derivation %d: %v", i, err)
		}
		if want := rarcrypto.Derive5("pw", salt, lg2); *k != *want {
			t.Fatalf("derivation %d (%s): wrong keys", i, salt)
		}
	}
	if _, err := kr.derive5("pw", c, lg2); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("a third distinct derivation: %v, want ErrLimit (the first two charged once each)", err)
	}
	if _, err := kr.derive5("other", a, lg2); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("another password: %v, want ErrLimit", err)
	}
}
