package sevenzip

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// tfile is one entry of a test tree.
type tfile struct {
	name  string
	data  []byte
	mode  fs.FileMode // 0: a regular 0644 file (no mode stored)
	mtime time.Time
	link  string // symlink target
	dir   bool
}

// memFile is an in-memory io.WriteSeeker / io.WriterAt.
type memFile struct {
	b   []byte
	off int64
}

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if need := off + int64(len(p)); need > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, need-int64(len(m.b)))...)
	}
	return copy(m.b[off:], p), nil
}

func (m *memFile) Write(p []byte) (int, error) {
	n, err := m.WriteAt(p, m.off)
	m.off += int64(n)
	return n, err
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += m.off
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, errors.New("negative seek")
	}
	m.off = off
	return off, nil
}

func (m *memFile) Read(p []byte) (int, error) {
	if m.off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[m.off:])
	m.off += int64(n)
	return n, nil
}

// onlyWriterAt hides the Seek and Write methods.
type onlyWriterAt struct{ m *memFile }

func (o onlyWriterAt) Write(p []byte) (int, error)              { return 0, errors.New("sequential write") }
func (o onlyWriterAt) WriteAt(p []byte, off int64) (int, error) { return o.m.WriteAt(p, off) }

// addFiles writes files into zw.
func addFiles(t testutil.TB, zw *Writer, files []tfile) {
	t.Helper()
	for _, f := range files {
		h := &FileHeader{Name: f.name, Modified: f.mtime, Mode: f.mode}
		if f.dir {
			h.Mode |= fs.ModeDir
		}
		if f.link != "" {
			h.Mode |= fs.ModeSymlink
		}
		ew, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		data := f.data
		if f.link != "" {
			data = []byte(f.link)
		}
		// Uneven writes, byte-sized ones included.
		for i, step := 0, 1; i < len(data); step = step*5%4099 + 1 {
			j := min(len(data), i+step)
			if _, err := ew.Write(data[i:j]); err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			i = j
		}
	}
}

// writeArchive writes files into a new archive with opts.
func writeArchive(t testutil.TB, files []tfile, opts ...WriterOption) []byte {
	t.Helper()
	var m memFile
	zw, err := NewWriter(&m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	addFiles(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return m.b
}

// wantMode is the mode a reader should report for f.
func wantMode(f tfile) fs.FileMode {
	switch {
	case f.link != "":
		return fs.ModeSymlink | f.mode.Perm()
	case f.dir:
		if f.mode == 0 {
			return fs.ModeDir | 0o755
		}
		return fs.ModeDir | f.mode.Perm()
	case f.mode == 0:
		return 0o644
	}
	return f.mode
}

// checkOurs reads the archive back with this package.
func checkOurs(t testutil.TB, b []byte, files []tfile, password string) *Archive {
	t.Helper()
	var opts []arc.Option
	if password != "" {
		opts = append(opts, arc.WithPassword(password))
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)), opts...)
	if err != nil {
		t.Fatalf("our reader: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	es := a.Entries()
	if len(es) != len(files) {
		t.Fatalf("our reader: %d entries, want %d", len(es), len(files))
	}
	for i, e := range es {
		f := files[i]
		if e.Name != strings.TrimSuffix(f.name, "/") {
			t.Errorf("entry %d: name %q, want %q", i, e.Name, f.name)
		}
		if e.Mode != wantMode(f) {
			t.Errorf("%s: mode %v, want %v", f.name, e.Mode, wantMode(f))
		}
		if !f.mtime.IsZero() && !e.Modified.Equal(f.mtime.Truncate(100*time.Nanosecond)) {
			t.Errorf("%s: mtime %v, want %v", f.name, e.Modified, f.mtime)
		}
		if f.dir {
			continue
		}
		if f.link != "" {
			got, err := a.LinkTarget(i)
			if err != nil || got != f.link {
				t.Errorf("%s: link %q (%v), want %q", f.name, got, err, f.link)
			}
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, f.data) {
			t.Fatalf("%s: %d bytes (%v), want %d", f.name, len(got), err, len(f.data))
		}
	}
	return a
}

func need7zz(t testutil.TB) {
	t.Helper()
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
}

// check7zz runs `7zz t` and `7zz x` on the archive (or on the first of
// its volumes at path) and compares the extracted tree with files.
func check7zz(t testutil.TB, path string, files []tfile, password string) {
	t.Helper()
	pw := "-p" + password
	if out, err := exec.Command("7zz", "t", "-bd", pw, path).CombinedOutput(); err != nil {
		t.Fatalf("7zz t: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if out, err := exec.Command("7zz", "x", "-bd", "-y", "-snl", pw, "-o"+dir, path).CombinedOutput(); err != nil {
		t.Fatalf("7zz x: %v\n%s", err, out)
	}
	compareTree(t, dir, files)
}

// compareTree checks dir holds exactly files.
func compareTree(t testutil.TB, dir string, files []tfile) {
	t.Helper()
	want := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(f.name, "/")
		want[name] = true
		p := filepath.Join(dir, filepath.FromSlash(name))
		st, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: not extracted: %v", name, err)
			continue
		}
		switch {
		case f.link != "":
			got, err := os.Readlink(p)
			if err != nil || got != f.link {
				t.Errorf("%s: link %q (%v), want %q", name, got, err, f.link)
			}
			continue
		case f.dir:
			if !st.IsDir() {
				t.Errorf("%s: not a directory", name)
			}
		default:
			got, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(got, f.data) {
				t.Errorf("%s: content differs (%d bytes, want %d; %v)", name, len(got), len(f.data), err)
			}
		}
		if f.mode != 0 && st.Mode().Perm() != f.mode.Perm() {
			t.Errorf("%s: mode %v, want %v", name, st.Mode().Perm(), f.mode.Perm())
		}
		if !f.mtime.IsZero() && !f.dir && !st.ModTime().Equal(f.mtime.Truncate(100*time.Nanosecond)) {
			t.Errorf("%s: mtime %v, want %v", name, st.ModTime(), f.mtime)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if rel != "." && !want[filepath.ToSlash(rel)] {
			t.Errorf("extra file %s", rel)
		}
		return nil
	})
}

func writeTemp(t testutil.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "out.7z")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// testTree is a small tree with every kind of entry.
func testTree(seed uint64) []tfile {
	r := rand.New(rand.NewPCG(seed, 9))
	mt := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
	text := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog\n", 300))
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	return []tfile{
		{name: "dir", dir: true, mode: 0o750, mtime: mt},
		{name: "dir/text.txt", data: text, mode: 0o640, mtime: mt},
		{name: "dir/empty", data: nil, mode: 0o600, mtime: mt},
		{name: "dir/sub", dir: true, mode: 0o755},
		{name: "dir/sub/random.bin", data: random, mode: 0o755, mtime: mt.Add(time.Hour)},
		{name: "link", link: "dir/text.txt", mode: 0o777, mtime: mt},
		{name: "emptydir", dir: true, mode: 0o700},
		{name: "ünïcode 𝄞.txt", data: []byte("x"), mode: 0o644, mtime: mt},
		{name: "plain", data: []byte("no mode stored")},
	}
}

// TestWriterRoundTrip writes the test tree in every mode and checks it
// with our reader and with 7zz.
func TestWriterRoundTrip(t *testing.T) {
	files := testTree(1)
	rnd := func() WriterOption { return WithRandom(rand.NewChaCha8([32]byte{1})) }
	cases := []struct {
		name string
		pw   string
		opts []WriterOption
	}{
		{"default", "", nil},
		{"copy", "", []WriterOption{WithMethod(Copy)}},
		{"lzma", "", []WriterOption{WithMethod(LZMA)}},
		{"level0", "", []WriterOption{WithLevel(0)}},
		{"level1-dict64k", "", []WriterOption{WithLevel(1), WithDictSize(1 << 16)}},
		{"lzma-lc4-fb128", "", []WriterOption{WithMethod(LZMA), WithLiteralBits(4, 0, 0), WithFastBytes(128), WithDictSize(1 << 20)}},
		{"plainheader", "", []WriterOption{WithHeaderCompression(false)}},
		{"nonsolid", "", []WriterOption{WithSolid(0, 1)}},
		{"solid2", "", []WriterOption{WithSolid(0, 2)}},
		{"solidbytes", "", []WriterOption{WithSolid(1000, 0)}},
		{"x86", "", []WriterOption{WithFilter(FilterX86)}},
		{"arm64", "", []WriterOption{WithFilter(FilterARM64)}},
		{"arm", "", []WriterOption{WithFilter(FilterARM)}},
		{"delta4", "", []WriterOption{WithDelta(4)}},
		{"aes", testPassword, []WriterOption{WithPassword(testPassword), WithKDFCycles(10), rnd()}},
		{"aes-he", testPassword, []WriterOption{WithPassword(testPassword), WithEncryptedHeaders(), rnd()}},
		{"aes-he-salt-lzma", testPassword, []WriterOption{WithPassword(testPassword), WithEncryptedHeaders(), WithSalt(16), WithMethod(LZMA), WithKDFCycles(12), rnd()}},
		{"aes-copy-nonsolid", testPassword, []WriterOption{WithPassword(testPassword), WithMethod(Copy), WithSolid(0, 1), WithKDFCycles(8), rnd()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := writeArchive(t, files, c.opts...)
			checkOurs(t, b, files, c.pw)
			need7zz(t)
			check7zz(t, writeTemp(t, b), files, c.pw)
		})
	}
}

func TestWriterEmptyArchive(t *testing.T) {
	b := writeArchive(t, nil)
	if len(b) != 32 {
		t.Fatalf("%d bytes", len(b))
	}
	checkOurs(t, b, nil, "")
	need7zz(t)
	if out, err := exec.Command("7zz", "t", writeTemp(t, b)).CombinedOutput(); err != nil {
		t.Fatalf("7zz t: %v\n%s", err, out)
	}
}

var _ = fmt.Sprint
var _ = sort.Strings
var _ = errs.ErrInvalidOption
