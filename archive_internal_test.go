package unarc

import (
	"bytes"
	"io"
	"testing"
)

type rsc struct{ *bytes.Reader }

func (rsc) Close() error { return nil }

// TestSeekReaderAt: the io.Seeker adapter keeps the io.ReaderAt contract
// (a short read at the end is io.EOF, the bytes are right).
func TestSeekReaderAt(t *testing.T) {
	s := &seekReaderAt{f: rsc{bytes.NewReader([]byte("0123456789"))}}
	buf := make([]byte, 4)
	if n, err := s.ReadAt(buf, 3); n != 4 || err != nil || string(buf) != "3456" {
		t.Fatalf("ReadAt(3) = %d %v %q", n, err, buf)
	}
	if n, err := s.ReadAt(buf, 8); n != 2 || err != io.EOF || string(buf[:2]) != "89" {
		t.Fatalf("ReadAt(8) = %d %v %q; want 2, io.EOF", n, err, buf[:n])
	}
}
