package rarfilter

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// call builds pad bytes of 0x90, then op and a little-endian operand.
func call(pad int, op byte, operand uint32) []byte {
	b := bytes.Repeat([]byte{0x90}, pad)
	b = append(b, op)
	return binary.LittleEndian.AppendUint32(b, operand)
}

func TestE8E9(t *testing.T) {
	const tail = 4 // keeps the operand out of the last four bytes
	for _, c := range []struct {
		name    string
		op      byte
		e9      bool
		operand uint32
		fileOff uint32
		mask    uint32
		want    uint32
	}{
		// Operand at position 11 of the block (10 pad + opcode).
		{"absolute in file becomes relative", 0xe8, false, 0x1000, 0, V3Offsets, 0x1000 - 11},
		{"block offset counts", 0xe8, false, 0x1000, 0x100, V3Offsets, 0x1000 - 0x100 - 11},
		{"negative, in reach: add file size", 0xe8, false, 0xfffffff0, 0x100, V3Offsets, 0x00fffff0},
		{"negative, out of reach: kept", 0xe8, false, 0xfffffff0, 0, V3Offsets, 0xfffffff0},
		{"beyond file size: kept", 0xe8, false, fileSize, 0, V3Offsets, fileSize},
		{"E9 ignored by E8", 0xe9, false, 0x1000, 0, V3Offsets, 0x1000},
		{"E9 translated by E8E9", 0xe9, true, 0x1000, 0, V3Offsets, 0x1000 - 11},
		{"E8 translated by E8E9", 0xe8, true, 0x1000, 0, V3Offsets, 0x1000 - 11},
		// Above 16 MiB the formats part: RAR 5 wraps the position.
		{"v3 offset does not wrap", 0xe8, false, 0x10, fileSize + 5, V3Offsets, 0xff000000},
		{"v5 offset wraps", 0xe8, false, 0x10, fileSize + 5, V5Offsets, 0x10 - (5 + 11)},
	} {
		b := append(call(10, c.op, c.operand), make([]byte, tail)...)
		E8E9(b, c.fileOff, c.e9, c.mask)
		if got := binary.LittleEndian.Uint32(b[11:]); got != c.want {
			t.Errorf("%s: operand %#x, want %#x", c.name, got, c.want)
		}
	}

	// An operand is skipped whole: its own 0xE8 bytes are not opcodes.
	b := append(call(0, 0xe8, 0xe8e8e8e8), make([]byte, 8)...)
	E8E9(b, 0, false, V3Offsets)
	if got := binary.LittleEndian.Uint32(b[1:]); got != 0xe8e8e8e8 {
		t.Errorf("operand with E8 bytes: %#x", got)
	}
	if !bytes.Equal(b[5:], make([]byte, 8)) {
		t.Errorf("bytes after the operand changed: % x", b[5:])
	}

	// The last four bytes never start a translation; an operand that
	// is the last four bytes is translated.
	for n := 0; n <= 9; n++ {
		for k := 0; k < 4; k++ {
			b := append(bytes.Repeat([]byte{0x90}, n), 0xe8)
			b = append(b, make([]byte, k)...)
			want := append([]byte(nil), b...)
			E8E9(b, 0, true, V5Offsets)
			if !bytes.Equal(b, want) {
				t.Errorf("opcode %d bytes before the end changed: % x", k+1, b)
			}
		}
		b := call(n, 0xe8, 0x100)
		E8E9(b, 0, false, V5Offsets)
		if got := binary.LittleEndian.Uint32(b[n+1:]); got != 0x100-uint32(n+1) {
			t.Errorf("operand ending the block: %#x, want %#x", got, 0x100-uint32(n+1))
		}
	}
}

func TestDelta(t *testing.T) {
	// Two channels of three samples: 10 20 30 and 1 2 3, stored as
	// negated differences channel after channel.
	want := []byte{10, 1, 20, 2, 30, 3}
	src := []byte{256 - 10, 256 - 10, 256 - 10, 256 - 1, 256 - 1, 256 - 1}
	dst := make([]byte, len(want))
	Delta(dst, src, 2)
	if !bytes.Equal(dst, want) {
		t.Errorf("Delta = %v, want %v", dst, want)
	}

	// Round trip for every channel count and a length not a multiple of it.
	data := make([]byte, 1001)
	for i := range data {
		data[i] = byte(i*i + i>>3)
	}
	for ch := 1; ch <= 32; ch++ {
		var enc []byte
		for c := 0; c < ch; c++ {
			var prev byte
			for i := c; i < len(data); i += ch {
				enc = append(enc, prev-data[i])
				prev = data[i]
			}
		}
		got := make([]byte, len(data))
		Delta(got, enc, ch)
		if !bytes.Equal(got, data) {
			t.Fatalf("%d channels: round trip differs", ch)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i) | 0xe0
	}
	dst := make([]byte, len(b))
	if n := testing.AllocsPerRun(20, func() {
		E8E9(b, 123, true, V5Offsets)
		Delta(dst, b, 4)
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

func BenchmarkFilters(b *testing.B) {
	src := make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(i*7 + i>>5)
		if i%13 == 0 {
			src[i] = 0xe8
		}
	}
	dst := make([]byte, len(src))
	b.Run("e8e9", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			E8E9(src, uint32(i), true, V5Offsets)
		}
	})
	b.Run("delta", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			Delta(dst, src, 3)
		}
	})
}
