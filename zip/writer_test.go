package zip

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// wfile is one entry of a test tree.
type wfile struct {
	name   string // no trailing slash
	mode   fs.FileMode
	mod    time.Time
	data   []byte // a symlink's target for links
	method uint16
}

// randomTree makes a tree of n entries from seed: directories, empty
// and compressible and random files, symlinks, unicode names, old and
// far-future times, modes.
func randomTree(seed uint64, n int) []wfile {
	r := rand.New(rand.NewPCG(seed, 7))
	names := []string{"a", "b.txt", "data.bin", "ünï", "日本語", "spaced name", "x-y_z", "Ω", "emoji-🙂", ".hidden"}
	times := []time.Time{
		time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC),
		time.Date(1975, 1, 2, 3, 4, 6, 0, time.UTC),
		time.Date(1904, 2, 29, 12, 0, 0, 0, time.UTC),
		time.Date(2036, 12, 31, 23, 59, 58, 0, time.UTC),
		time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2400, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1700, 6, 1, 0, 0, 0, 0, time.UTC),
	}
	methods := []uint16{Deflate, Deflate, Store, Zstd, LZMA}
	var files []wfile
	dirs := []string{""}
	seen := map[string]bool{}
	for len(files) < n {
		parent := dirs[r.IntN(len(dirs))]
		name := names[r.IntN(len(names))] + fmt.Sprint(r.IntN(50))
		if parent != "" {
			name = parent + "/" + name
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		f := wfile{name: name, mod: times[r.IntN(len(times))], method: methods[r.IntN(len(methods))]}
		switch k := r.IntN(10); {
		case k < 2:
			f.mode = fs.ModeDir | 0o755
			dirs = append(dirs, name)
		case k < 3:
			f.mode = fs.ModeSymlink | 0o777
			f.data = []byte("target " + fmt.Sprint(r.IntN(9)))
		default:
			f.mode = []fs.FileMode{0o644, 0o600, 0o755, 0o444}[r.IntN(4)]
			switch r.IntN(4) {
			case 0:
				// empty
			case 1:
				f.data = testutil.RandomBytes(r.IntN(3000), r.Uint64())
			case 2:
				f.data = bytes.Repeat([]byte("text line "+fmt.Sprint(r.IntN(100))+"\n"), r.IntN(5000))
			case 3:
				f.data = append(testutil.RandomBytes(r.IntN(100), r.Uint64()), bytes.Repeat([]byte{'z'}, r.IntN(1<<16))...)
			}
		}
		files = append(files, f)
	}
	return files
}

// writeTree writes files with w; CreateHeader with each file's method.
func writeTree(t testutil.TB, zw *Writer, files []wfile) {
	t.Helper()
	for _, f := range files {
		h := &FileHeader{Name: f.name, Modified: f.mod, Method: f.method}
		h.SetMode(f.mode)
		ew, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if len(f.data) > 0 {
			if _, err := ew.Write(f.data); err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
		}
	}
}

// checkTree reads archive b with our Archive and compares it with files.
func checkTree(t testutil.TB, b []byte, files []wfile, pw string) {
	t.Helper()
	var opts []arc.Option
	if pw != "" {
		opts = append(opts, arc.WithPassword(pw))
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if w := a.Warnings(); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
	ents := a.Entries()
	if len(ents) != len(files) {
		t.Fatalf("%d entries, want %d", len(ents), len(files))
	}
	for i, f := range files {
		e := ents[i]
		want := f.name
		if f.mode.IsDir() {
			want += "/"
		}
		if e.Name != want {
			t.Errorf("entry %d: name %q, want %q", i, e.Name, want)
		}
		if e.Mode != f.mode {
			t.Errorf("%s: mode %v, want %v", f.name, e.Mode, f.mode)
		}
		if !f.mod.IsZero() && !e.Modified.Equal(f.mod) {
			t.Errorf("%s: modified %v, want %v", f.name, e.Modified, f.mod)
		}
		if f.mode.IsDir() {
			continue
		}
		got, err := testutil.ReadClose(a.Open(i))
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		if f.mode&fs.ModeSymlink != 0 {
			if e.LinkTarget != string(f.data) {
				t.Errorf("%s: link target %q, want %q", f.name, e.LinkTarget, f.data)
			}
			continue
		}
		if !bytes.Equal(got, f.data) {
			t.Errorf("%s: content differs (%d bytes, want %d)", f.name, len(got), len(f.data))
		}
	}
}

// checkStream reads archive b with the forward Reader and compares the
// contents with files.
func checkStream(t testutil.TB, b []byte, files []wfile, pw string) {
	t.Helper()
	var opts []arc.Option
	if pw != "" {
		opts = append(opts, arc.WithPassword(pw))
	}
	z, err := NewReader(bytes.NewReader(b), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for i, f := range files {
		e, err := z.Next()
		if err != nil {
			t.Fatalf("entry %d (%s): %v", i, f.name, err)
		}
		got, err := io.ReadAll(z)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if f.mode.IsRegular() && !bytes.Equal(got, f.data) {
			t.Errorf("stream: %s: content differs (%d bytes, want %d)", f.name, len(got), len(f.data))
		}
	}
	if _, err := z.Next(); err != io.EOF {
		t.Errorf("after the last entry: %v", err)
	}
}

// onlyWriter hides everything of an io.Writer but Write (no Seek).
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

// seekBuffer is an in-memory io.WriteSeeker.
type seekBuffer struct {
	b   []byte
	pos int
}

func (s *seekBuffer) Write(p []byte) (int, error) {
	if end := s.pos + len(p); end > len(s.b) {
		s.b = append(s.b, make([]byte, end-len(s.b))...)
	}
	copy(s.b[s.pos:], p)
	s.pos += len(p)
	return len(p), nil
}

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += int64(s.pos)
	case io.SeekEnd:
		off += int64(len(s.b))
	}
	s.pos = int(off)
	return off, nil
}

func TestWriterRoundTrip(t *testing.T) {
	for _, seekable := range []bool{false, true} {
		for _, pw := range []string{"", "pässword"} {
			t.Run(fmt.Sprintf("seek=%v,pw=%q", seekable, pw), func(t *testing.T) {
				files := randomTree(1, 60)
				// One entry larger than the head, compressible, and one not.
				files = append(files,
					wfile{name: "big.txt", mode: 0o644, mod: time.Unix(1e9, 0).UTC(), method: Deflate,
						data: testutil.Words(headSize+300000, 3, []string{"alpha", "beta", "gamma"}, 100)},
					wfile{name: "big.bin", mode: 0o644, mod: time.Unix(1e9, 0).UTC(), method: Deflate,
						data: testutil.RandomBytes(headSize+5000, 4)},
					wfile{name: "big.zst", mode: 0o644, mod: time.Unix(1e9, 0).UTC(), method: Zstd,
						data: testutil.Words(headSize+1000, 5, []string{"x", "yy"}, 10)})
				var opts []WriterOption
				if pw != "" {
					opts = append(opts, WithPassword(pw), WithRandom(rand.NewChaCha8([32]byte{1})))
				}
				var b []byte
				if seekable {
					sb := &seekBuffer{}
					zw := NewWriter(sb, opts...)
					writeTree(t, zw, files)
					if err := zw.Close(); err != nil {
						t.Fatal(err)
					}
					b = sb.b
				} else {
					var buf bytes.Buffer
					zw := NewWriter(onlyWriter{&buf}, opts...)
					writeTree(t, zw, files)
					if err := zw.Close(); err != nil {
						t.Fatal(err)
					}
					b = buf.Bytes()
				}
				checkTree(t, b, files, pw)
				checkStream(t, b, files, pw)
			})
		}
	}
}

func TestWriterNames(t *testing.T) {
	var buf bytes.Buffer
	zw := NewWriter(&buf)
	for _, bad := range []string{"", "/abs", "C:/x", "a/../b", "a//b", "./", "a\x00b"} {
		if _, err := zw.Create(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q: %v, want ErrInvalidName", bad, err)
		}
	}
	if _, err := zw.Create("ok"); err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Create("ok"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("duplicate: %v", err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Create("late"); err == nil {
		t.Error("Create after Close succeeded")
	}
}

func TestWriterBadOption(t *testing.T) {
	zw := NewWriter(io.Discard, WithLevel(12))
	if _, err := zw.Create("x"); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("Create: %v", err)
	}
	if err := zw.Close(); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("Close: %v", err)
	}
}

func TestWriterStaleEntry(t *testing.T) {
	zw := NewWriter(io.Discard)
	w1, _ := zw.Create("a")
	zw.Create("b")
	if _, err := w1.Write([]byte("x")); err == nil {
		t.Error("stale write succeeded")
	}
	zw.Close()
}

func TestWriterZip64(t *testing.T) {
	defer func(z, c uint64) { zip64Max, countMax = z, c }(zip64Max, countMax)
	zip64Max, countMax = 1000, 5
	files := randomTree(9, 20)
	files = append(files, wfile{name: "big", mode: 0o644, method: Store, data: testutil.RandomBytes(headSize+10, 1)})
	for _, seekable := range []bool{false, true} {
		var b []byte
		if seekable {
			sb := &seekBuffer{}
			zw := NewWriter(sb)
			writeTree(t, zw, files)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			b = sb.b
		} else {
			var buf bytes.Buffer
			zw := NewWriter(onlyWriter{&buf})
			writeTree(t, zw, files)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			b = buf.Bytes()
		}
		if !bytes.Contains(b, []byte("PK\x06\x06")) {
			t.Error("no Zip64 end record")
		}
		checkTree(t, b, files, "")
	}
}

func TestWriterReproducible(t *testing.T) {
	files := randomTree(3, 30)
	write := func() []byte {
		var buf bytes.Buffer
		zw := NewWriter(&buf, WithPassword("pw"), WithRandom(rand.NewChaCha8([32]byte{5})))
		writeTree(t, zw, files)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if a, b := write(), write(); !bytes.Equal(a, b) {
		t.Error("two runs wrote different bytes")
	}
}

func TestWriterStoredWhenIncompressible(t *testing.T) {
	var buf bytes.Buffer
	zw := NewWriter(&buf)
	w, _ := zw.Create("r")
	w.Write(testutil.RandomBytes(5000, 1))
	w, _ = zw.Create("t")
	w.Write([]byte(strings.Repeat("abc", 5000)))
	zw.Close()
	a, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if m := a.Entries()[0].Method; m != "Store" {
		t.Errorf("random data: %s", m)
	}
	if m := a.Entries()[1].Method; m != "Deflate" {
		t.Errorf("text: %s", m)
	}
}

func TestWriterDumpForTools(t *testing.T) {
	dir := os.Getenv("ZIPW_DUMP")
	if dir == "" {
		t.Skip("ZIPW_DUMP not set")
	}
	files := randomTree(1, 60)
	for _, pw := range []string{"", "pw"} {
		var buf bytes.Buffer
		var opts []WriterOption
		if pw != "" {
			opts = append(opts, WithPassword(pw))
		}
		zw := NewWriter(onlyWriter{&buf}, opts...)
		writeTree(t, zw, files)
		zw.Close()
		os.WriteFile(filepath.Join(dir, "t"+pw+".zip"), buf.Bytes(), 0o644)
	}
}

// TestWriterCopy copies every entry of an archive (with CreateRaw's
// path), plain and into an encrypted archive, and reads the copies back.
func TestWriterCopy(t *testing.T) {
	files := randomTree(11, 40)
	var src bytes.Buffer
	zw := NewWriter(&src)
	writeTree(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(src.Bytes()), int64(src.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{"", "copy pw"} {
		var dst bytes.Buffer
		var opts []WriterOption
		if pw != "" {
			opts = append(opts, WithPassword(pw))
		}
		cw := NewWriter(onlyWriter{&dst}, opts...)
		for i := range a.Entries() {
			if err := cw.Copy(a, i); err != nil {
				t.Fatalf("copy %d: %v", i, err)
			}
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
		checkTree(t, dst.Bytes(), files, pw)
		checkStream(t, dst.Bytes(), files, pw)
	}
}

// failWriter fails once n bytes have been written.
type failWriter struct{ n int }

var errSink = errors.New("sink failed")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errSink
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriterSinkError: an output error is the Writer's from then on
// (sticky), at every point of the archive, and Close still returns the
// pooled state.
func TestWriterSinkError(t *testing.T) {
	files := randomTree(21, 20)
	files = append(files, wfile{name: "big", mode: 0o644, method: Deflate,
		data: testutil.Words(headSize+70000, 1, []string{"q", "rs"}, 5)})
	var full bytes.Buffer
	zw := NewWriter(&full)
	writeTree(t, zw, files)
	zw.Close()
	for _, n := range []int{0, 10, 100, 5000, full.Len() / 2, full.Len() - 30} {
		zw := NewWriter(&failWriter{n: n}, WithPassword("x"))
		var err error
		for _, f := range files {
			h := &FileHeader{Name: f.name, Method: f.method, Modified: f.mod}
			h.SetMode(f.mode)
			var w io.Writer
			if w, err = zw.CreateHeader(h); err != nil {
				break
			}
			if len(f.data) > 0 {
				if _, err = w.Write(f.data); err != nil {
					break
				}
			}
		}
		cerr := zw.Close()
		if err == nil {
			err = cerr
		}
		if !errors.Is(err, errSink) {
			t.Errorf("failing after %d bytes: %v", n, err)
		}
		if zw.st != nil {
			t.Errorf("failing after %d bytes: state not released", n)
		}
	}
}

// TestWriterThreads: the bytes do not depend on WithThreads, with AES
// (salts drawn in archive order) and a sink that seeks.
func TestWriterThreads(t *testing.T) {
	files := randomTree(31, 80)
	files = append(files, wfile{name: "big", mode: 0o644, method: Deflate,
		data: testutil.Words(headSize+5000, 2, []string{"k", "lm"}, 9)})
	// Segments: three full ones and a part, then exactly two.
	files = append(files, wfile{name: "segments", mode: 0o644, method: Deflate,
		data: testutil.Words(4*segSize+777, 4, []string{"seg", "ment", "s"}, 30)})
	files = append(files, wfile{name: "segments2", mode: 0o644, method: Deflate,
		data: testutil.Words(3*segSize, 5, []string{"x", "yz"}, 7)})
	files = append(files, randomTree(32, 20)...)
	var first []byte
	for _, n := range []int{1, 2, 4, 7} {
		sb := &seekBuffer{}
		zw := NewWriter(sb, WithThreads(n), WithPassword("t"), WithRandom(rand.NewChaCha8([32]byte{3})))
		writeTree(t, zw, dedup(files))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = sb.b
			checkTree(t, sb.b, dedup(files), "t")
		} else if !bytes.Equal(first, sb.b) {
			t.Errorf("%d threads wrote other bytes than 1", n)
		}
	}
}

// dedup drops entries whose name an earlier one has.
func dedup(files []wfile) []wfile {
	seen := map[string]bool{}
	var out []wfile
	for _, f := range files {
		if !seen[f.name] {
			seen[f.name] = true
			out = append(out, f)
		}
	}
	return out
}

// TestWriterStateAfterSegments: an archive written after one with a
// segmented entry (whose encoders took a dictionary) has the bytes it
// has when written before it, and reads back. klauspost's Reset primes
// the next stream's window with the last dictionary ResetDict gave; the
// encoders now start whole entries with ResetDict(dst, nil). (This
// case does not reproduce what BenchmarkZipWriter showed with Reset:
// the 20 MiB tree written after the 16 MiB entry came out 12.9 KB
// larger.)
func TestWriterStateAfterSegments(t *testing.T) {
	mixed := testutil.Words(6*segSize, 12, []string{"alpha ", "beta ", "gamma ", "delta\n"}, 40)
	var files []wfile
	for i := range 3 {
		files = append(files, wfile{name: fmt.Sprint("f", i), mode: 0o644, method: Deflate,
			data: mixed[3*segSize+i*segSize : 4*segSize+i*segSize]})
	}
	big := []wfile{{name: "segmented", mode: 0o644, method: Deflate, data: mixed[:3*segSize+10]}}
	for _, n := range []int{1, 2} {
		write := func(files []wfile) []byte {
			var buf bytes.Buffer
			zw := NewWriter(&buf, WithThreads(n))
			writeTree(t, zw, files)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
		before := write(files)
		write(big)
		after := write(files)
		checkTree(t, after, files, "")
		if !bytes.Equal(before, after) {
			t.Errorf("%d threads: the archive after a segmented one differs", n)
		}
	}
}
