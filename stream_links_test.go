package unarc

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

type zipEnt struct {
	name, content string
	mode          fs.FileMode
	extra         []byte
}

// streamZip writes a ZIP as a streaming writer does (data descriptors;
// Unix modes only in the central directory) and returns it and the
// offset of its central directory.
func streamZip(t *testing.T, ents ...zipEnt) ([]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range ents {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store, Extra: e.extra}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.content))
	}
	zw.Flush()
	cd := buf.Len()
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), cd
}

// asiExtra builds an ASi Unix extra field (0x756e) with mode and target.
func asiExtra(mode uint16, target string) []byte {
	b := make([]byte, 4+14+len(target))
	binary.LittleEndian.PutUint16(b, 0x756e)
	binary.LittleEndian.PutUint16(b[2:], uint16(14+len(target)))
	binary.LittleEndian.PutUint16(b[8:], mode)
	binary.LittleEndian.PutUint32(b[10:], uint32(len(target)))
	copy(b[18:], target)
	return b
}

func extractStream(t *testing.T, data []byte, dest string) error {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Extract(context.Background(), dest)
}

func TestStreamZipSymlinksFromCentralDirectory(t *testing.T) {
	data, _ := streamZip(t,
		zipEnt{name: "target.txt", content: "the target", mode: 0o644},
		zipEnt{name: "link", content: "target.txt", mode: fs.ModeSymlink | 0o777},
		zipEnt{name: "tool.sh", content: "#!/bin/sh\n", mode: 0o755},
		zipEnt{name: "bad", content: "../../etc/passwd", mode: fs.ModeSymlink | 0o777},
		zipEnt{name: "priv/", mode: fs.ModeDir | 0o700},
	)
	dest := t.TempDir()
	err := extractStream(t, data, dest)
	got := entryErrs(t, err)
	if len(got) != 1 || !errors.Is(got["bad"], ErrInsecurePath) {
		t.Errorf("errors %v, want only bad with ErrInsecurePath", got)
	}
	if tgt, err := os.Readlink(filepath.Join(dest, "link")); err != nil || tgt != "target.txt" {
		t.Errorf("link: %q, %v; want a symlink to target.txt", tgt, err)
	}
	if _, err := os.Lstat(filepath.Join(dest, "bad")); err == nil {
		t.Error("the unsafe link was left (as a file or link)")
	}
	if st, _ := os.Stat(filepath.Join(dest, "tool.sh")); st.Mode().Perm() != 0o755&^processUmask() {
		t.Errorf("tool.sh mode %v, want 0755 from the central directory", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Join(dest, "priv")); st.Mode().Perm() != 0o700 {
		t.Errorf("priv mode %v, want 0700 from the central directory", st.Mode().Perm())
	}
}

func TestStreamZipLocalASiMode(t *testing.T) {
	data, cd := streamZip(t,
		zipEnt{name: "target.txt", content: "the target", mode: 0o644},
		zipEnt{name: "link", content: "target.txt", mode: fs.ModeSymlink | 0o777, extra: asiExtra(0o120777, "target.txt")},
		zipEnt{name: "run", content: "x", mode: 0o750, extra: asiExtra(0o100750, "")},
		zipEnt{name: "last", content: "the cut stream cannot show where this ends", mode: 0o644},
	)
	// Cut the stream where the central directory starts: only the local
	// ASi fields can tell.
	dest := t.TempDir()
	err := extractStream(t, data[:cd], dest)
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("cut before the directory: %v, want ErrTruncated", err)
	}
	if tgt, err := os.Readlink(filepath.Join(dest, "link")); err != nil || tgt != "target.txt" {
		t.Errorf("link: %q, %v; want a symlink from the ASi field", tgt, err)
	}
	if st, err := os.Stat(filepath.Join(dest, "run")); err != nil || st.Mode().Perm() != 0o750&^processUmask() {
		t.Errorf("run: %v, %v; want mode 0750 from the ASi field", st, err)
	}
}
