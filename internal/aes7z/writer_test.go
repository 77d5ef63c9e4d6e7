package aes7z

import (
	"bytes"
	"io"
	"testing"
)

func TestWriterRoundTrip(t *testing.T) {
	var key [32]byte
	for i := range key {
		key[i] = byte(i * 7)
	}
	w, err := NewWriter(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 15, 16, 17, encBuf - 1, encBuf, encBuf + 1, 3*encBuf + 5} {
		plain := make([]byte, n)
		for i := range plain {
			plain[i] = byte(i*31 + n)
		}
		iv := [16]byte{byte(n), 2, 3}
		var out bytes.Buffer
		w.Reset(&out, iv)
		// Mix byte-sized and larger writes.
		for i := 0; i < len(plain); {
			if i%3 == 0 {
				if err := w.WriteByte(plain[i]); err != nil {
					t.Fatal(err)
				}
				i++
				continue
			}
			j := min(len(plain), i+1+i%1000)
			if _, err := w.Write(plain[i:j]); err != nil {
				t.Fatal(err)
			}
			i = j
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.Len()%16 != 0 || out.Len() < n || out.Len() > n+15 || w.Written() != int64(out.Len()) {
			t.Fatalf("n=%d: %d ciphertext bytes (Written %d)", n, out.Len(), w.Written())
		}
		r, err := NewReader(&out, key, iv)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:n], plain) || !bytes.Equal(got[n:], make([]byte, len(got)-n)) {
			t.Fatalf("n=%d: round trip differs", n)
		}
	}
}

func TestEncodePropsRoundTrip(t *testing.T) {
	for _, salt := range [][]byte{nil, {1}, bytes.Repeat([]byte{9}, 16)} {
		p := Props{Cycles: 19, Salt: salt, IV: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
		b := EncodeProps(nil, &p)
		q, err := ParseProps(b)
		if err != nil {
			t.Fatal(err)
		}
		if q.Cycles != p.Cycles || !bytes.Equal(q.Salt, p.Salt) || q.IV != p.IV {
			t.Fatalf("props %x decode to %+v", b, q)
		}
	}
}

func TestWriterNoAllocs(t *testing.T) {
	w, err := NewWriter([32]byte{1})
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 100)
	allocs := testing.AllocsPerRun(20, func() {
		w.Reset(io.Discard, [16]byte{7})
		for i := 0; i < 10000; i++ {
			w.WriteByte(byte(i))
		}
		for i := 0; i < 100; i++ {
			w.Write(chunk)
		}
		w.Close()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per stream", allocs)
	}
}
