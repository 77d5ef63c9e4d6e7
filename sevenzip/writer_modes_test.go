package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// fakeBinary returns n bytes that start like an executable of the given
// kind ("elf-x86", "elf-arm64", "pe-x86", "pe-arm64", "macho-arm64")
// and continue with code-like bytes.
func fakeBinary(kind string, n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		if r.IntN(3) == 0 {
			b[i] = []byte{0xE8, 0x00, 0xFF, 0x94, 0x90, 0xEB}[r.IntN(6)]
		} else {
			b[i] = byte(r.Uint32())
		}
	}
	switch kind {
	case "elf-x86", "elf-arm64":
		copy(b, "\x7fELF\x02\x01\x01")
		m := uint16(62)
		if kind == "elf-arm64" {
			m = 183
		}
		binary.LittleEndian.PutUint16(b[18:], m)
	case "pe-x86", "pe-arm64":
		clear(b[:0x100])
		copy(b, "MZ")
		binary.LittleEndian.PutUint32(b[0x3C:], 0x80)
		copy(b[0x80:], "PE\x00\x00")
		m := uint16(0x8664)
		if kind == "pe-arm64" {
			m = 0xAA64
		}
		binary.LittleEndian.PutUint16(b[0x84:], m)
	case "macho-arm64":
		binary.BigEndian.PutUint32(b, 0xCFFAEDFE)
		binary.LittleEndian.PutUint32(b[4:], 0x0100000C)
	}
	return b
}

func TestSniffFilter(t *testing.T) {
	for kind, want := range map[string]Filter{"elf-x86": FilterX86, "elf-arm64": FilterARM64, "pe-x86": FilterX86,
		"pe-arm64": FilterARM64, "macho-arm64": FilterARM64, "data": FilterNone} {
		if got := sniffFilter(fakeBinary(kind, 5000, 1)); got != want {
			t.Errorf("%s: %v, want %v", kind, got, want)
		}
	}
	if got := sniffFilter([]byte("MZ")); got != FilterNone {
		t.Errorf("short MZ: %v", got)
	}
}

// TestAutoFilterFolders: with the automatic filter, executables get
// their filter and like files share a folder.
func TestAutoFilterFolders(t *testing.T) {
	files := []tfile{
		{name: "a.elf", data: fakeBinary("elf-x86", 30000, 1)},
		{name: "b.txt", data: []byte(strings.Repeat("text ", 3000))},
		{name: "c.exe", data: fakeBinary("pe-x86", 20000, 2)},
		{name: "d.arm", data: fakeBinary("elf-arm64", 20000, 3)},
		{name: "e.dylib", data: fakeBinary("macho-arm64", 9000, 4)},
		{name: "tiny", data: []byte("MZ")},
	}
	// Through AddFS, which groups by filter.
	dir := t.TempDir()
	for _, f := range files {
		os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644)
	}
	var m memFile
	zw, err := NewWriter(&m)
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(m.b), int64(len(m.b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	methods := map[string]string{}
	for _, e := range a.Entries() {
		methods[e.Name] = e.Method
	}
	for name, want := range map[string]string{"a.elf": "BCJ", "c.exe": "BCJ", "d.arm": "ARM64", "e.dylib": "ARM64", "b.txt": "", "tiny": ""} {
		got := methods[name]
		if want == "" && (strings.Contains(got, "BCJ") || strings.Contains(got, "ARM")) || want != "" && !strings.HasPrefix(got, want+" ") {
			t.Errorf("%s: method %q, want filter %q", name, got, want)
		}
	}
	if n := len(a.si.folders); n != 3 {
		t.Errorf("%d folders, want 3 (none, BCJ, ARM64)", n)
	}
	need7zz(t)
	check7zz(t, writeTemp(t, m.b), files, "")
}

// TestAddFS adds a directory tree with symlinks and empty dirs and
// compares what 7zz extracts with the source.
func TestAddFS(t *testing.T) {
	src := t.TempDir()
	mt := time.Date(2023, 1, 2, 3, 4, 5, 600, time.UTC)
	files := testTree(3)
	for _, f := range files {
		p := filepath.Join(src, filepath.FromSlash(f.name))
		switch {
		case f.dir:
			os.MkdirAll(p, 0o755)
		case f.link != "":
			if err := os.Symlink(f.link, p); err != nil {
				t.Fatal(err)
			}
		default:
			os.WriteFile(p, f.data, 0o644)
		}
	}
	want := make([]tfile, 0, len(files))
	for _, f := range files {
		p := filepath.Join(src, filepath.FromSlash(f.name))
		if f.link == "" {
			mode := f.mode
			if mode == 0 {
				mode = 0o644
			}
			os.Chmod(p, mode.Perm())
			os.Chtimes(p, mt, mt)
			f.mode, f.mtime = mode, mt
		} else {
			f.mtime = time.Time{}
		}
		want = append(want, f)
	}
	var m memFile
	zw, err := NewWriter(&m)
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.AddFS(os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(m.b), int64(len(m.b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.Entries()) != len(files) {
		t.Fatalf("%d entries, want %d", len(a.Entries()), len(files))
	}
	need7zz(t)
	dir := t.TempDir()
	path := writeTemp(t, m.b)
	check7zz(t, path, want, "")
	_ = dir
}

// TestWriterOutputs writes the same tree through every kind of output
// and requires the same bytes.
func TestWriterOutputs(t *testing.T) {
	files := testTree(2)
	opts := []WriterOption{WithPassword("pw"), WithEncryptedHeaders(), WithKDFCycles(6)}
	seed := func() WriterOption { return WithRandom(rand.NewChaCha8([32]byte{5})) }
	ref := writeArchive(t, files, append(opts, seed())...)

	// io.WriterAt only.
	var m memFile
	zw, err := NewWriter(onlyWriterAt{&m}, append(opts, seed())...)
	if err != nil {
		t.Fatal(err)
	}
	addFiles(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.b, ref) {
		t.Error("WriterAt output differs")
	}

	// A WriteSeeker that already holds a prefix (an SFX stub): the
	// archive starts at its offset.
	m = memFile{}
	m.Write([]byte("stub"))
	zw, _ = NewWriter(&m, append(opts, seed())...)
	addFiles(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.b[4:], ref) {
		t.Error("WriteSeeker output after a prefix differs")
	}

	// A plain io.Writer: spooled to a temporary file, which Close removes.
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	var buf bytes.Buffer
	zw, err = NewWriter(&buf, append(opts, seed())...)
	if err != nil {
		t.Fatalf("plain io.Writer: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmpdir, "unarc-7z-*")); len(left) != 1 {
		t.Errorf("spool files while writing: %v", left)
	}
	addFiles(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), ref) {
		t.Error("output through the temporary spool differs")
	}
	if left, _ := filepath.Glob(filepath.Join(tmpdir, "unarc-7z-*")); len(left) != 0 {
		t.Errorf("spool files left after Close: %v", left)
	}
	// Abort removes it too.
	buf.Reset()
	zw, err = NewWriter(&buf, append(opts, seed())...)
	if err != nil {
		t.Fatal(err)
	}
	addFiles(t, zw, files)
	zw.Abort()
	if left, _ := filepath.Glob(filepath.Join(tmpdir, "unarc-7z-*")); len(left) != 0 || buf.Len() != 0 {
		t.Errorf("after Abort: spool files %v, %d bytes written", left, buf.Len())
	}
	// ... with a spool of the caller's.
	buf.Reset()
	var spool memFile
	zw, err = NewWriter(&buf, append(opts, seed(), WithSpool(&spool))...)
	if err != nil {
		t.Fatal(err)
	}
	addFiles(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), ref) {
		t.Error("spooled output differs")
	}
	// ... with the start header handed back.
	buf.Reset()
	zw, err = NewWriter(&buf, append(opts, seed(), WithDeferredStartHeader())...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.StartHeader(); err == nil {
		t.Error("StartHeader before Close succeeded")
	}
	addFiles(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	sh, err := zw.StartHeader()
	if err != nil {
		t.Fatal(err)
	}
	if got := append(sh[:], buf.Bytes()...); !bytes.Equal(got, ref) {
		t.Error("deferred start header output differs")
	}
	checkOurs(t, ref, files, "pw")
	need7zz(t)
	check7zz(t, writeTemp(t, ref), files, "pw")
}

// TestWriterVolumes splits an archive into volumes, read back by our
// reader (through the volume opener) and by 7zz.
func TestWriterVolumes(t *testing.T) {
	files := testTree(4)
	dir := t.TempDir()
	base := filepath.Join(dir, "set.7z")
	var created []string
	zw, err := NewWriter(nil, WithVolumes(10000, func(n int) (io.Writer, error) {
		name := fmt.Sprintf("%s.%03d", base, n)
		created = append(created, name)
		return os.Create(name)
	}), WithMethod(Copy))
	if err != nil {
		t.Fatal(err)
	}
	addFiles(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if len(created) < 5 {
		t.Fatalf("%d volumes", len(created))
	}
	var whole []byte
	for i, name := range created {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if i < len(created)-1 && len(b) != 10000 {
			t.Fatalf("%s: %d bytes", name, len(b))
		}
		whole = append(whole, b...)
	}
	checkOurs(t, whole, files, "")
	f, _ := os.Open(created[0])
	defer f.Close()
	st, _ := f.Stat()
	a, err := Open(f, st.Size(), arc.WithVolumeOpener(created[0], func(name string) (io.ReaderAt, int64, error) {
		v, err := os.Open(name)
		if err != nil {
			return nil, 0, err
		}
		t.Cleanup(func() { v.Close() })
		st, _ := v.Stat()
		return v, st.Size(), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Entries()) != len(files) {
		t.Fatalf("volume set: %d entries", len(a.Entries()))
	}
	a.Close()
	need7zz(t)
	check7zz(t, created[0], files, "")
}

// TestWriterReproducible: the same inputs, times and random source give
// the same bytes, twice and with 1 or 2 encoder threads.
func TestWriterReproducible(t *testing.T) {
	files := testTree(5)
	n := 3 << 20 // several LZMA2 blocks at 1 MiB
	if testing.Short() {
		n = 1 << 20
	}
	big := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range big {
		if i%4096 < 2048 {
			big[i] = byte(r.Uint32())
		} else {
			big[i] = byte(i / 7)
		}
	}
	files = append(files, tfile{name: "big", data: big})
	for _, m := range []Method{LZMA2, LZMA} {
		var outs [][]byte
		for _, th := range []int{1, 1, 2} {
			outs = append(outs, writeArchive(t, files, WithMethod(m), WithThreads(th), WithBlockSize(1<<20),
				WithPassword("x"), WithEncryptedHeaders(), WithKDFCycles(4), WithSalt(8),
				WithRandom(rand.NewChaCha8([32]byte{9}))))
		}
		for i := 1; i < len(outs); i++ {
			if !bytes.Equal(outs[0], outs[i]) {
				t.Errorf("%v: run %d differs", m, i)
			}
		}
		checkOurs(t, outs[0], files, "x")
	}
	// A different random source changes the bytes (IVs and salt are used).
	a := writeArchive(t, files[:3], WithPassword("x"), WithKDFCycles(4), WithRandom(rand.NewChaCha8([32]byte{1})))
	b := writeArchive(t, files[:3], WithPassword("x"), WithKDFCycles(4), WithRandom(rand.NewChaCha8([32]byte{2})))
	if bytes.Equal(a, b) {
		t.Error("the random source is not used")
	}
}

func TestWriterOptionErrors(t *testing.T) {
	var m memFile
	for name, opts := range map[string][]WriterOption{
		"level":    {WithLevel(10)},
		"method":   {WithMethod(Method(9))},
		"dict":     {WithDictSize(100)},
		"he-no-pw": {WithEncryptedHeaders()},
		"pw-empty": {WithPassword("")},
		"kdf":      {WithKDFCycles(25)},
		"salt":     {WithSalt(17)},
		"delta":    {WithDelta(0)},
		"solid":    {WithSolid(-1, 0)},
		"vol":      {WithVolumes(10, nil)},
		"lc":       {WithLiteralBits(4, 1, 2)},
		"random":   {WithRandom(nil)},
	} {
		if _, err := NewWriter(&m, opts...); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("%s: %v", name, err)
		}
	}
	zw, _ := NewWriter(&m)
	if _, err := zw.Create(""); !errors.Is(err, ErrInvalidName) {
		t.Errorf("empty name: %v", err)
	}
	d, _ := zw.CreateHeader(&FileHeader{Name: "d/"})
	if _, err := d.Write([]byte("x")); err == nil {
		t.Error("data written to a directory")
	}
	f1, _ := zw.Create("f1")
	zw.Create("f2")
	if _, err := f1.Write([]byte("x")); err == nil {
		t.Error("write to a stale entry")
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	if _, err := zw.Create("late"); err == nil {
		t.Error("Create after Close")
	}
	_ = fs.ModeDir
}

// failAt is an io.WriterAt that fails once n bytes are written.
type failAt struct {
	m memFile
	n int64
}

var errDisk = errors.New("disk full")

func (f *failAt) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.n {
		return 0, errDisk
	}
	return f.m.WriteAt(p, off)
}
func (f *failAt) Write(p []byte) (int, error) { return 0, errDisk }

// TestWriterErrors: an output that fails surfaces its error from the
// entry's Write or from Close, nothing is written after it, and the
// pooled state is sound for the next archive (also after Abort).
func TestWriterErrors(t *testing.T) {
	files := testTree(6)
	for _, limit := range []int64{10, 100, 5000, 60000} {
		for _, m := range []Method{LZMA2, LZMA, Copy} {
			out := &failAt{n: limit}
			zw, err := NewWriter(out, WithMethod(m), WithLevel(1), WithPassword("p"), WithKDFCycles(2))
			if err != nil {
				if limit < 32 && errors.Is(err, errDisk) {
					continue
				}
				t.Fatal(err)
			}
			var werr error
			for _, f := range files {
				ew, err := zw.CreateHeader(&FileHeader{Name: f.name, Mode: f.mode})
				if err != nil {
					werr = err
					break
				}
				if _, err := ew.Write(f.data); err != nil {
					werr = err
					break
				}
			}
			cerr := zw.Close()
			if !errors.Is(werr, errDisk) && !errors.Is(cerr, errDisk) {
				t.Errorf("limit %d %v: write %v, close %v", limit, m, werr, cerr)
			}
			if int64(len(out.m.b)) > limit {
				t.Errorf("limit %d: %d bytes written", limit, len(out.m.b))
			}
			// The next archive (with the same pooled state) is sound.
			b := writeArchive(t, files, WithMethod(m), WithLevel(1))
			checkOurs(t, b, files, "")
		}
	}
	// Abort: nothing more is written; the start header stays zero.
	var mf memFile
	zw, _ := NewWriter(&mf, WithLevel(1))
	addFiles(t, zw, files)
	n := len(mf.b)
	zw.Abort()
	if len(mf.b) != n || !bytes.Equal(mf.b[:32], make([]byte, 32)) {
		t.Errorf("Abort wrote %d more bytes or a start header", len(mf.b)-n)
	}
	if err := zw.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	if _, err := zw.Create("x"); err == nil {
		t.Error("Create after Abort succeeded")
	}
	b := writeArchive(t, files, WithLevel(1))
	checkOurs(t, b, files, "")
}

// TestAttributesLike7zz: for the same tree, `7zz l -slt` shows the same
// attributes for our archive as for the one `7zz a -snl` writes (file,
// setuid file, directory, symlink, read-only file).
func TestAttributesLike7zz(t *testing.T) {
	need7zz(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "d"), 0o750)
	os.Chmod(filepath.Join(src, "d"), 0o750)
	os.WriteFile(filepath.Join(src, "f"), []byte("hi\n"), 0o640)
	os.WriteFile(filepath.Join(src, "ro"), []byte("ro\n"), 0o444)
	os.WriteFile(filepath.Join(src, "e"), nil, 0o755)
	os.Chmod(filepath.Join(src, "e"), 0o4755|fs.ModeSetuid)
	os.Chmod(filepath.Join(src, "f"), 0o640)
	os.Chmod(filepath.Join(src, "ro"), 0o444)
	os.Symlink("f", filepath.Join(src, "l"))
	ref := filepath.Join(dir, "ref.7z")
	if out, err := exec.Command("7zz", "a", "-bd", "-snl", ref, src).CombinedOutput(); err != nil {
		t.Fatalf("7zz a: %v\n%s", err, out)
	}
	var m memFile
	zw, _ := NewWriter(&m)
	if err := zw.AddTree(os.DirFS(dir), "src", nil); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	attrs := func(path string) map[string]string {
		out, err := exec.Command("7zz", "l", "-slt", path).CombinedOutput()
		if err != nil {
			t.Fatalf("7zz l: %v\n%s", err, out)
		}
		got := map[string]string{}
		var name string
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "Path = "); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(line, "Attributes = "); ok {
				got[name] = v
			}
		}
		return got
	}
	want, got := attrs(ref), attrs(writeTemp(t, m.b))
	if len(want) != 6 {
		t.Fatalf("7zz lists %v", want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: attributes %q, 7zz %q", name, got[name], w)
		}
	}
}
