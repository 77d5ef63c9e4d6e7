package sevenzip

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/testutil"
)

// lyingFS is a MapFS whose files can lie about their size (Stat of the
// open file says sizes[name]), fail to open (openErr), fail reading
// after their data (readErr) or change their mtime once read (touched),
// as files changing under the writer do.
type lyingFS struct {
	fstest.MapFS
	sizes   map[string]int64
	openErr map[string]error
	readErr map[string]error
	touched map[string]bool
}

func (l lyingFS) Open(name string) (fs.File, error) {
	if err := l.openErr[name]; err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f, err := l.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	size, lies := l.sizes[name]
	if !lies && l.readErr[name] == nil && !l.touched[name] {
		return f, nil
	}
	st, _ := f.Stat()
	if !lies {
		size = st.Size()
	}
	return &lyingFile{File: f, info: sizedInfo{st, size, 0}, rerr: l.readErr[name], touch: l.touched[name]}, nil
}

type lyingFile struct {
	fs.File
	info        sizedInfo
	rerr        error
	touch, read bool
}

func (f *lyingFile) Stat() (fs.FileInfo, error) {
	if f.touch && f.read {
		f.info.later = time.Second
	}
	return f.info, nil
}

func (f *lyingFile) Read(p []byte) (int, error) {
	f.read = true
	n, err := f.File.Read(p)
	if err == io.EOF && f.rerr != nil {
		err = f.rerr
	}
	return n, err
}

type sizedInfo struct {
	fs.FileInfo
	size  int64
	later time.Duration
}

func (s sizedInfo) Size() int64        { return s.size }
func (s sizedInfo) ModTime() time.Time { return s.FileInfo.ModTime().Add(s.later) }

// TestAddTreeFileErrors: a file that shrinks, grows, changes in place,
// cannot be opened or fails reading is reported for itself, and the walk goes on with
// WithFileErrors: the archive holds the rest, and what it holds of those
// files is consistent (7zz t passes).
func TestAddTreeFileErrors(t *testing.T) {
	mt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	data := func(n int) []byte { return bytes.Repeat([]byte("0123456789"), n/10) }
	fsys := lyingFS{
		MapFS: fstest.MapFS{
			"t/a-ok.txt":     {Data: data(40), Mode: 0o644, ModTime: mt},
			"t/b-shrank.txt": {Data: data(60), Mode: 0o644, ModTime: mt},
			"t/c-grew.txt":   {Data: data(80), Mode: 0o644, ModTime: mt},
			"t/d-secret":     {Data: data(10), Mode: 0o600, ModTime: mt},
			"t/e-ioerr":      {Data: data(30), Mode: 0o644, ModTime: mt},
			"t/f-ok.txt":     {Data: data(20), Mode: 0o644, ModTime: mt},
			"t/g-touched":    {Data: data(30), Mode: 0o644, ModTime: mt},
		},
		sizes:   map[string]int64{"t/b-shrank.txt": 100, "t/c-grew.txt": 50, "t/e-ioerr": 70},
		openErr: map[string]error{"t/d-secret": fs.ErrPermission},
		readErr: map[string]error{"t/e-ioerr": syscall.EIO},
		touched: map[string]bool{"t/g-touched": true},
	}
	got := map[string]error{}
	var m memFile
	zw, err := NewWriter(&m, WithFileErrors(func(name string, err error) error {
		got[name] = err
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.AddTree(fsys, "t", nil); err != nil {
		t.Fatalf("AddTree: %v", err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]error{
		"t/b-shrank.txt": archwrite.ErrShrank, "t/c-grew.txt": archwrite.ErrGrew,
		"t/d-secret": fs.ErrPermission, "t/e-ioerr": syscall.EIO, "t/g-touched": archwrite.ErrChanged,
	} {
		if !errors.Is(got[name], want) {
			t.Errorf("%s: reported %v, want %v", name, got[name], want)
		}
		delete(got, name)
	}
	for name, err := range got {
		t.Errorf("%s: reported %v", name, err)
	}
	files := []tfile{
		{name: "t", dir: true, mode: fs.ModeDir | 0o555},
		{name: "t/a-ok.txt", data: data(40), mode: 0o644, mtime: mt},
		{name: "t/b-shrank.txt", data: data(60), mode: 0o644, mtime: mt},
		{name: "t/c-grew.txt", data: data(50), mode: 0o644, mtime: mt},
		{name: "t/e-ioerr", data: data(30), mode: 0o644, mtime: mt},
		{name: "t/f-ok.txt", data: data(20), mode: 0o644, mtime: mt},
		{name: "t/g-touched", data: data(30), mode: 0o644, mtime: mt},
	}
	checkOurs(t, m.b, files, "")
	need7zz(t)
	if out, err := exec.Command("7zz", "t", "-bd", writeTemp(t, m.b)).CombinedOutput(); err != nil {
		t.Fatalf("7zz t: %v\n%s", err, out)
	}
}

// TestAddTreeFileErrorsStop: without WithFileErrors the first such file
// stops AddTree with an error naming it and matching its cause; the
// files before it stay, and the archive closes valid. A handler that
// returns an error stops the walk with it.
func TestAddTreeFileErrorsStop(t *testing.T) {
	fsys := lyingFS{
		MapFS: fstest.MapFS{
			"a":   {Data: []byte("first\n")},
			"b":   {Data: []byte("shrinks\n")},
			"c":   {Data: []byte("never reached\n")},
			"d/e": {Data: []byte("never reached\n")},
		},
		sizes: map[string]int64{"b": 100},
	}
	var m memFile
	zw, _ := NewWriter(&m, WithFilter(FilterNone))
	err := zw.AddFS(fsys)
	if !errors.Is(err, archwrite.ErrShrank) || !strings.Contains(err.Error(), "b:") {
		t.Fatalf("AddFS: %v, want the shrunk file named", err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if names := entryNames(t, m.b); strings.Join(names, " ") != "a b" {
		t.Errorf("entries %q, want a and the part of b read", names)
	}

	stop := errors.New("stop here")
	zw, _ = NewWriter(&m, WithFileErrors(func(string, error) error { return stop }))
	if err := zw.AddFS(fsys); err != stop {
		t.Errorf("AddFS with a stopping handler: %v", err)
	}
	zw.Abort()
}

// TestAddTreeRootSymlink: a symlink given as the root is stored as a
// link, as the links under it are; WithFollowRoot stores what it points
// to under its name.
func TestAddTreeRootSymlink(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "real", "sub", "f.txt"), []byte("in the tree\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "file.txt"), []byte("a file\n"), 0o644)
	os.Symlink("real", filepath.Join(dir, "dirlink"))
	os.Symlink("file.txt", filepath.Join(dir, "filelink"))
	add := func(root string, opts ...WriterOption) *Archive {
		var m memFile
		zw, _ := NewWriter(&m, opts...)
		if err := zw.AddTree(os.DirFS(dir), root, nil); err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(m.b), int64(len(m.b)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a
	}
	for root, target := range map[string]string{"dirlink": "real", "filelink": "file.txt"} {
		a := add(root)
		es := a.Entries()
		if len(es) != 1 || es[0].Name != root || es[0].Mode&fs.ModeSymlink == 0 {
			t.Errorf("%s: entries %v, want one symlink", root, es)
			continue
		}
		if got, err := a.LinkTarget(0); err != nil || got != target {
			t.Errorf("%s: target %q (%v), want %q", root, got, err, target)
		}
	}
	a := add("dirlink", WithFollowRoot())
	var names []string
	for _, e := range a.Entries() {
		names = append(names, e.Name)
	}
	if strings.Join(names, " ") != "dirlink dirlink/sub dirlink/sub/f.txt" {
		t.Errorf("followed: entries %q", names)
	}
	a = add("filelink", WithFollowRoot())
	if es := a.Entries(); len(es) != 1 || !es[0].Mode.IsRegular() || es[0].Size != 7 {
		t.Errorf("followed file: %v", es)
	}
}

// TestWriterSpecialEntries: CreateHeader stores a named pipe, a socket
// and devices with their Unix type (as 7zz does) and takes no data for
// them; readers see empty regular files.
func TestWriterSpecialEntries(t *testing.T) {
	var m memFile
	zw, _ := NewWriter(&m)
	for name, mode := range map[string]fs.FileMode{
		"fifo": fs.ModeNamedPipe | 0o640, "sock": fs.ModeSocket | 0o755,
		"chr": fs.ModeDevice | fs.ModeCharDevice | 0o600, "blk": fs.ModeDevice | 0o660,
	} {
		ew, err := zw.CreateHeader(&FileHeader{Name: name, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ew.Write([]byte("x")); err == nil {
			t.Errorf("%s: data written", name)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(m.b), int64(len(m.b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, e := range a.Entries() {
		if !e.Mode.IsRegular() || e.Size != 0 {
			t.Errorf("%s: mode %v, size %d", e.Name, e.Mode, e.Size)
		}
	}
	need7zz(t)
	props := testutil.SltProps(t, writeTemp(t, m.b))
	for name, want := range map[string]string{"fifo": "prw-r-----", "sock": "srwxr-xr-x", "chr": "crw-------", "blk": "brw-rw----"} {
		if !strings.HasSuffix(props[name], "A "+want) {
			t.Errorf("%s: 7zz shows %q, want %q", name, props[name], want)
		}
	}
}
