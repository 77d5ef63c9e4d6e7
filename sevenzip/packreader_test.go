package sevenzip

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestPackReaderPeek drives a packReader and a bufio.Reader of the same
// size over the same bytes with random Peek, Discard, Read and ReadByte
// calls: the range decoders (PPMd, Deflate) read the pack stream in place
// through Peek/Discard/Buffered and rely on bufio's meaning of them.
func TestPackReaderPeek(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	data := make([]byte, 3*packBufSize+12345)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	// The stream is a window of a larger file, as pack streams are.
	file := append(append(bytes.Repeat([]byte{0xEE}, 100), data...), bytes.Repeat([]byte{0xDD}, 50)...)
	for round := 0; round < 20; round++ {
		p := new(packReader)
		p.reset(bytes.NewReader(file), 100, int64(len(data)))
		b := bufio.NewReaderSize(bytes.NewReader(data), packBufSize)
		pos := 0
		for step := 0; pos < len(data) && step < 5000; step++ {
			switch r.IntN(4) {
			case 0:
				n := r.IntN(packBufSize + 2)
				if r.IntN(2) == 0 {
					n = r.IntN(16)
				}
				got, gerr := p.Peek(n)
				want, werr := b.Peek(n)
				if !bytes.Equal(got, want) || (gerr == nil) != (werr == nil) {
					t.Fatalf("round %d pos %d: Peek(%d) = %d bytes, %v; bufio %d bytes, %v", round, pos, n, len(got), gerr, len(want), werr)
				}
				if werr == bufio.ErrBufferFull && gerr != bufio.ErrBufferFull {
					t.Fatalf("Peek(%d) beyond the buffer: %v, want bufio.ErrBufferFull", n, gerr)
				}
			case 1:
				n := r.IntN(3 * packBufSize / 2)
				gn, _ := p.Discard(n)
				wn, _ := b.Discard(n)
				if gn != wn {
					t.Fatalf("Discard(%d) = %d, bufio %d", n, gn, wn)
				}
				pos += gn
			case 2:
				buf := make([]byte, r.IntN(1000)+1)
				gn, _ := io.ReadFull(p, buf)
				if !bytes.Equal(buf[:gn], data[pos:pos+gn]) {
					t.Fatalf("Read at %d returned other bytes", pos)
				}
				b.Discard(gn)
				pos += gn
			case 3:
				c, err := p.ReadByte()
				if err != nil || c != data[pos] {
					t.Fatalf("ReadByte at %d = %d, %v; want %d", pos, c, err, data[pos])
				}
				b.Discard(1)
				pos++
			}
			if p.Buffered() > packBufSize {
				t.Fatalf("Buffered %d", p.Buffered())
			}
		}
		p.Close()
	}

	// A stream that the archive cuts short: Peek reports the truncation.
	p := new(packReader)
	p.reset(bytes.NewReader(file[:200]), 100, 500)
	got, err := p.Peek(300)
	if len(got) != 100 || !errors.Is(err, errs.ErrTruncated) {
		t.Fatalf("Peek past the archive end: %d bytes, %v", len(got), err)
	}
	p.Close()
}

// The range decoders take their slice mode for this interface.
var _ interface {
	io.Reader
	Peek(int) ([]byte, error)
	Discard(int) (int, error)
	Buffered() int
} = (*packReader)(nil)
