package lzma

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// mtRef is the reference for FuzzEncodeMT: the blocks encoded one after
// the other by a single block2Encoder, concatenated, then the end byte.
var mtRef block2Encoder

func mtReference(t *testing.T, data []byte, bs int, opts ...WriterOption) []byte {
	t.Helper()
	if err := mtRef.reset(opts...); err != nil {
		t.Fatal(err)
	}
	var out []byte
	for p := data; len(p) > 0; {
		k := min(bs, len(p))
		var err error
		if out, err = mtRef.encodeBlock(out, p[:k]); err != nil {
			t.Fatal(err)
		}
		p = p[k:]
	}
	return append(out, ctrlEnd)
}

// FuzzEncodeMT encodes arbitrary input in the block mode with 1 to 4
// goroutines, a block size of 4 to 32 KiB, a level 0-9 and writes of
// arbitrary size, and checks that our decoder gives the input back and
// that the stream equals the blocks encoded one by one (so equals
// Threads(1)'s whatever the thread count).
func FuzzEncodeMT(f *testing.F) {
	f.Add(genMixed(1, 20000), uint8(1), uint8(0), uint8(1), uint16(0))
	f.Add(genMixed(2, 70000), uint8(3), uint8(2), uint8(5), uint16(777))
	f.Add(bytes.Repeat([]byte("abcabcabd"), 3000), uint8(2), uint8(1), uint8(9), uint16(1))
	f.Add(make([]byte, 50000), uint8(3), uint8(0), uint8(0), uint16(4095))
	f.Add([]byte{}, uint8(0), uint8(0), uint8(0), uint16(0))
	for _, name := range testutil.Glob(f, filepath.Join("..", "..", "testdata", "lzma", "*")) {
		if b, err := os.ReadFile(name); err == nil && len(b) < 200<<10 {
			f.Add(b, uint8(len(b)), uint8(len(b)>>3), uint8(len(b)>>5), uint16(len(b)))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, th, bsel, lsel uint8, wsel uint16) {
		defer testutil.FuzzBound(t, 4*testutil.FuzzTimeout, 512<<20)()
		if len(data) > 96<<10 {
			data = data[:96<<10] // up to 24 blocks of the smallest size
		}
		threads := 1 + int(th%4)
		bs := MinBlockSize << (bsel % 4)
		level := int(lsel % 10)
		chunk := int(wsel)
		name := fmt.Sprintf("threads %d, blocks %d, level %d, writes %d", threads, bs, level, chunk)

		var buf bytes.Buffer
		w, err := NewWriter2(&buf, Level(level), Threads(threads), BlockSize(int64(bs)))
		if err != nil {
			t.Fatal(err)
		}
		mtWriteAll(t, w, data, chunk)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		dict, _ := DictSizeLZMA2(w.DictByte())
		r, err := NewReader2(bytes.NewReader(buf.Bytes()), dict, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: decoded %d of %d bytes (differ at %d): %v", name, len(got), len(data), diffAt(got, data), err)
		}
		if ref := mtReference(t, data, bs, Level(level)); !bytes.Equal(buf.Bytes(), ref) {
			t.Fatalf("%s: %d bytes differ from the blocks encoded one by one (%d bytes) at %d", name, buf.Len(), len(ref), diffAt(buf.Bytes(), ref))
		}
	})
}
