package unarc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
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

// TestOpenDirectory: a directory is not an archive, through OpenFile, as
// a volume beside it, and through OpenFS: ErrFormat, nothing left open.
func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenFile(dir); !errors.Is(err, ErrFormat) {
		t.Errorf("OpenFile(dir): %v, want ErrFormat", err)
	}
	if _, _, err := openOSFile(dir); !errors.Is(err, ErrFormat) {
		t.Errorf("volume opener on a directory: %v, want ErrFormat", err)
	}
	if _, _, err := openFSFile(os.DirFS(filepath.Dir(dir)), filepath.Base(dir)); !errors.Is(err, ErrFormat) {
		t.Errorf("openFSFile(dir): %v, want ErrFormat", err)
	}
}
