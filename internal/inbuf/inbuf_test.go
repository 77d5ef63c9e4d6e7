package inbuf

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

type stuck struct{}

func (stuck) Read([]byte) (int, error) { return 0, nil }

func TestFillNeedBase(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10)
	var b Buffer
	b.Reset(iotest.OneByteReader(bytes.NewReader(data)), 16, 4)
	defer b.Release()
	if len(b.Buf) != 20 {
		t.Fatalf("len(Buf) = %d, want 20", len(b.Buf))
	}
	var got []byte
	for b.Need(3) {
		if off := b.Base + int64(b.IP); off != int64(len(got)) {
			t.Fatalf("offset %d, want %d", off, len(got))
		}
		for _, c := range b.Buf[b.End : b.End+4] {
			if c != 0 {
				t.Fatalf("slack not zero after End: % x", b.Buf[b.End:])
			}
		}
		got = append(got, b.Buf[b.IP:b.IP+3]...)
		b.IP += 3
	}
	got = append(got, b.Buf[b.IP:b.End]...)
	if !bytes.Equal(got, data) || !b.EOF || b.Err != nil {
		t.Fatalf("read %d bytes, EOF %v, Err %v", len(got), b.EOF, b.Err)
	}
}

func TestNoProgress(t *testing.T) {
	var b Buffer
	b.Reset(stuck{}, 8, 0)
	defer b.Release()
	if b.Fill(1) || b.Err != io.ErrNoProgress {
		t.Fatalf("Fill on a stuck reader: Err %v", b.Err)
	}
}
