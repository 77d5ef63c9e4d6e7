package tar

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// wfile is one entry of a test tree: its header and contents.
type wfile struct {
	h    tar.Header
	data []byte
}

var writeKinds = []Compression{None, Gzip, Zstd, XZ, Lzip}

// randName is a path element: ASCII, unicode, or long.
func randName(rng *rand.Rand, i int) string {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("ünï-%d-日本語-ß", i)
	case 1:
		return fmt.Sprintf("long-%d-%s", i, strings.Repeat("x", 90+rng.IntN(60)))
	case 2:
		return fmt.Sprintf("sp ace %d", i)
	}
	return fmt.Sprintf("f%d", i)
}

// randTime is an old, ordinary or far-future time in whole seconds.
func randTime(rng *rand.Rand) time.Time {
	switch rng.IntN(4) {
	case 0:
		return time.Unix(rng.Int64N(20*365*86400), 0) // 1970-1990
	case 1:
		return time.Date(2100+rng.IntN(300), 1, 1, 0, 0, rng.IntN(1<<24), 0, time.UTC)
	}
	return time.Unix(1_600_000_000+rng.Int64N(1e8), 0)
}

// randTree makes a tree of about n entries: directories (some empty),
// empty and non-empty files, symlinks (to files, dangling, to
// directories) and hard links, with modes that keep them readable and
// writable by their owner (so tools can extract and compare them).
func randTree(seed uint64, n int) []wfile {
	rng := rand.New(rand.NewPCG(seed, 7))
	var tree []wfile
	dirs := []string{""}
	var files []string
	for i := range n {
		parent := dirs[rng.IntN(len(dirs))]
		name := parent + randName(rng, i)
		h := tar.Header{Name: name, ModTime: randTime(rng), Mode: 0o600 | rng.Int64N(0o200)}
		var data []byte
		switch k := rng.IntN(10); {
		case k < 2:
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, name+"/", 0o700|rng.Int64N(0o100)
			dirs = append(dirs, name+"/")
		case k < 3:
			h.Typeflag, h.Linkname = tar.TypeSymlink, []string{"f0", "../nowhere", "sub/dir", randName(rng, i+1000)}[rng.IntN(4)]
			h.Mode = 0o777
		case k < 4 && len(files) > 0:
			h.Typeflag, h.Linkname = tar.TypeLink, files[rng.IntN(len(files))]
			h.Mode, h.ModTime = 0, time.Time{} // a hard link has its target's
			for _, f := range tree {
				if f.h.Name == h.Linkname {
					h.Mode, h.ModTime = f.h.Mode, f.h.ModTime
				}
			}
		default:
			h.Typeflag = tar.TypeReg
			switch rng.IntN(4) {
			case 0:
			case 1:
				data = make([]byte, rng.IntN(3000))
				for j := range data {
					data[j] = byte(rng.IntN(4)) + 'a'
				}
			default:
				data = make([]byte, rng.IntN(40000))
				for j := range data {
					data[j] = byte(rng.Uint32())
				}
				if rng.IntN(2) == 0 {
					copy(data[len(data)/2:], data)
				}
			}
			h.Size = int64(len(data))
			files = append(files, name)
		}
		tree = append(tree, wfile{h: h, data: data})
	}
	return tree
}

func writeTree(t testing.TB, tree []wfile, opts ...WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tree {
		h := tree[i].h
		if err := w.WriteHeader(&h); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
		if _, err := w.Write(tree[i].data); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readTree reads an archive back with our streaming reader.
func readTree(b []byte) ([]wfile, string, error) {
	r, err := NewReader(bytes.NewReader(b), conf.From(&arc.Config{}))
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	var out []wfile
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out, r.FormatName(), nil
		}
		if err != nil {
			return out, "", err
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return out, "", err
		}
		h, ok := e.Sys.(*tar.Header)
		if !ok { // a single file
			h = &tar.Header{Name: e.Name, Typeflag: tar.TypeReg}
		}
		out = append(out, wfile{h: *h, data: data})
	}
}

// sameTree compares what was read with what was written: names, types,
// permissions, times to the second, link targets, contents.
func sameTree(want, got []wfile) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := &want[i].h, &got[i].h
		if w.Name != g.Name || w.Typeflag != g.Typeflag || w.Linkname != g.Linkname ||
			w.Mode&0o7777 != g.Mode&0o7777 || !w.ModTime.Equal(g.ModTime) ||
			!bytes.Equal(want[i].data, got[i].data) {
			return fmt.Errorf("entry %d: got %q %c %q %o %v (%d bytes), want %q %c %q %o %v (%d bytes)", i,
				g.Name, g.Typeflag, g.Linkname, g.Mode, g.ModTime, len(got[i].data),
				w.Name, w.Typeflag, w.Linkname, w.Mode, w.ModTime, len(want[i].data))
		}
	}
	return nil
}

func treeCount(t *testing.T) (trees, size int) {
	if os.Getenv("UNARC_LONG") != "" {
		return 60, 60
	}
	if testing.Short() {
		return 2, 25
	}
	return 5, 40
}

// TestWriterRoundTrip: random trees through every compressor, read back
// by our reader.
func TestWriterRoundTrip(t *testing.T) {
	trees, size := treeCount(t)
	for seed := range trees {
		tree := randTree(uint64(seed), size)
		for _, c := range writeKinds {
			b := writeTree(t, tree, WithCompression(c), WithLevel(1), WithBlockSize(16<<10), WithThreads(1+seed%2))
			got, format, err := readTree(b)
			if err != nil {
				t.Fatalf("seed %d %v: %v", seed, c, err)
			}
			if want := "tar" + map[Compression]string{None: "", Gzip: ".gz", Zstd: ".zst", XZ: ".xz", Lzip: ".lz"}[c]; format != want {
				t.Errorf("seed %d %v: read as %s", seed, c, format)
			}
			if err := sameTree(tree, got); err != nil {
				t.Fatalf("seed %d %v: %v", seed, c, err)
			}
		}
	}
}

// TestWriterTools: GNU tar and bsdtar extract our tarballs as we wrote
// them (file list, contents, modes, link targets, times to the second).
func TestWriterTools(t *testing.T) {
	tools := []string{"tar", "bsdtar"}
	trees, size := treeCount(t)
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s not installed: skipped", tool)
			continue
		}
		for seed := range trees {
			tree := randTree(uint64(100+seed), size)
			for _, c := range writeKinds {
				if c == Lzip && tool == "tar" {
					if _, err := exec.LookPath("lzip"); err != nil {
						continue
					}
				}
				b := writeTree(t, tree, WithCompression(c), WithLevel(1), WithBlockSize(16<<10))
				dir := t.TempDir()
				arch := filepath.Join(dir, "a.tar")
				if err := os.WriteFile(arch, b, 0o644); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, "x")
				os.Mkdir(out, 0o755)
				cmd := exec.Command(tool, "-xf", arch, "-C", out)
				if msg, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %v seed %d: %v\n%s", tool, c, seed, err, msg)
				}
				if err := sameOnDisk(tree, out); err != nil {
					t.Fatalf("%s %v seed %d: %v", tool, c, seed, err)
				}
			}
		}
	}
}

// sameOnDisk compares an extracted tree with what was written.
func sameOnDisk(tree []wfile, dir string) error {
	data := map[string][]byte{}
	seen := 0
	for _, f := range tree {
		h := &f.h
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(h.Name, "/")))
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		seen++
		switch h.Typeflag {
		case tar.TypeDir:
			if !st.IsDir() {
				return fmt.Errorf("%s: not a directory", h.Name)
			}
		case tar.TypeSymlink:
			target, err := os.Readlink(p)
			if err != nil || target != h.Linkname {
				return fmt.Errorf("%s: link to %q (%v), want %q", h.Name, target, err, h.Linkname)
			}
			continue
		case tar.TypeLink:
			other, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(h.Linkname)))
			if err != nil || !os.SameFile(st, other) {
				return fmt.Errorf("%s: not a hard link of %s (%v)", h.Name, h.Linkname, err)
			}
			continue
		default:
			b, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(b, f.data) {
				return fmt.Errorf("%s: contents differ (%v)", h.Name, err)
			}
			data[h.Name] = b
		}
		if st.Mode().Perm() != fs0(h.Mode) {
			return fmt.Errorf("%s: mode %v, want %o", h.Name, st.Mode(), h.Mode)
		}
		// Directories: the tools set their times when they leave them,
		// and a random tree comes back to them later.
		if !st.IsDir() && !st.ModTime().Equal(h.ModTime.Round(time.Second)) {
			return fmt.Errorf("%s: time %v, want %v", h.Name, st.ModTime(), h.ModTime)
		}
	}
	var n int
	filepath.Walk(dir, func(string, os.FileInfo, error) error { n++; return nil })
	if n-1 != seen {
		return fmt.Errorf("%d files extracted, want %d", n-1, seen)
	}
	return nil
}

func fs0(m int64) os.FileMode { return os.FileMode(m & 0o777) }

// singleTools checks single files: the tool's test, and its decoding.
var singleTools = map[Compression]string{Gzip: "gzip", Zstd: "zstd", XZ: "xz", Lzip: "lzip"}

// TestCompressorTools: gzip, zstd, xz and lzip accept our single files
// and decode them to what was written; xz lists several blocks with
// their sizes.
func TestCompressorTools(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// The last is several gzip members with threads.
	inputs := [][]byte{nil, []byte("x"), make([]byte, 300<<10), make([]byte, 2500<<10)}
	for _, in := range inputs[2:] {
		for i := range in {
			if i%3 == 0 {
				in[i] = byte(rng.Uint32())
			} else {
				in[i] = byte(i / 1000)
			}
		}
	}
	for _, c := range []Compression{Gzip, Zstd, XZ, Lzip} {
		tool := singleTools[c]
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s not installed: skipped", tool)
			continue
		}
		for i, in := range inputs {
			for _, threads := range []int{1, 2} {
				var buf bytes.Buffer
				z, err := NewCompressor(&buf, c, WithBlockSize(64<<10), WithThreads(threads), WithLevel([]int{1, 3, 5, 1}[i]))
				if err != nil {
					t.Fatal(err)
				}
				// In pieces, with a Flush in the middle.
				half := len(in) / 2
				z.Write(in[:half])
				if err := z.(interface{ Flush() error }).Flush(); err != nil {
					t.Fatal(err)
				}
				z.Write(in[half:])
				if err := z.Close(); err != nil {
					t.Fatal(err)
				}
				f := filepath.Join(t.TempDir(), "f")
				os.WriteFile(f, buf.Bytes(), 0o644)
				if msg, err := exec.Command(tool, "-t", f).CombinedOutput(); err != nil {
					t.Fatalf("%s -t, input %d: %v\n%s", tool, i, err, msg)
				}
				out, err := exec.Command(tool, "-dc", f).Output()
				if err != nil || !bytes.Equal(out, in) {
					t.Fatalf("%s -dc, input %d: %v, %d bytes, want %d", tool, i, err, len(out), len(in))
				}
				got, _, err := readTree(buf.Bytes())
				if err != nil || len(got) != 1 || !bytes.Equal(got[0].data, in) {
					t.Fatalf("%v input %d: our reader: %v", c, i, err)
				}
				if c == XZ && i == 2 {
					checkXZBlocks(t, f, len(in)/(64<<10)+1)
				}
			}
		}
	}
}

// checkXZBlocks: xz --robot -lv lists at least want blocks, each with
// its compressed and uncompressed size.
func checkXZBlocks(t *testing.T, f string, want int) {
	out, err := exec.Command("xz", "--robot", "-lvv", f).Output()
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) < 13 || fields[0] != "block" {
			continue
		}
		blocks++
		// block: stream, number, offsets, total sizes, ratio, check,
		// check value, header size, size flags ("cu": both sizes in
		// the header).
		if fields[12] != "cu" {
			t.Errorf("block %s: header sizes %q, want cu", fields[2], fields[12])
		}
	}
	if blocks < want {
		t.Errorf("xz lists %d blocks, want at least %d:\n%s", blocks, want, out)
	}
}

// TestWriterAddFS: a directory tree with a symlink, through AddFS.
func TestWriterAddFS(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "d", "e"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "f"), []byte("hello"), 0o640)
	if err := os.Symlink("f", filepath.Join(dir, "d", "l")); err != nil {
		t.Skip(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WithCompression(Zstd))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _, err := readTree(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, f := range got {
		list = append(list, fmt.Sprintf("%s %c %s %q", f.h.Name, f.h.Typeflag, f.h.Linkname, f.data))
	}
	want := `d/ 5  "";d/e/ 5  "";d/f 0  "hello";d/l 2 f ""`
	if s := strings.Join(list, ";"); s != want {
		t.Errorf("got %s\nwant %s", s, want)
	}
}

func TestWriterOptionErrors(t *testing.T) {
	for _, o := range []WriterOption{WithLevel(10), WithLevel(-1), WithThreads(-1), WithBlockSize(1), WithCompression(Compression(kindBzip2)), WithCompression(99)} {
		if _, err := NewWriter(io.Discard, o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("got %v, want ErrInvalidOption", err)
		}
	}
	z, _ := NewCompressor(io.Discard, Gzip)
	z.Close()
	if _, err := z.Write([]byte("x")); err == nil {
		t.Error("Write after Close did not fail")
	}
}

// TestWriterAllocs: writing 100 files of 128 bytes and one of 256 KiB,
// once warm (encoders pooled).
func TestWriterAllocs(t *testing.T) {
	if testing.Short() && runtime.GOARCH != "amd64" {
		t.Skip("slow")
	}
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items on purpose under -race")
	}
	tree := make([]wfile, 101)
	for i := range 100 {
		tree[i] = wfile{h: tar.Header{Name: "f" + strconv.Itoa(i), Mode: 0o644, Size: 128, Typeflag: tar.TypeReg, ModTime: time.Unix(1e9, 0)}, data: bytes.Repeat([]byte{byte(i)}, 128)}
	}
	big := make([]byte, 256<<10)
	for i := range big {
		big[i] = byte(i * i >> 5)
	}
	tree[100] = wfile{h: tar.Header{Name: "big", Mode: 0o644, Size: int64(len(big)), Typeflag: tar.TypeReg, ModTime: time.Unix(1e9, 0)}, data: big}
	for _, c := range writeKinds {
		write := func() {
			w, err := NewWriter(io.Discard, WithCompression(c), WithLevel(1))
			if err != nil {
				t.Fatal(err)
			}
			for i := range tree {
				w.WriteHeader(&tree[i].h)
				w.Write(tree[i].data)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		write()
		write()
		// The best of three rounds: a GC during a round empties the
		// encoder pools (sync.Pool), which a loaded machine makes likely.
		per, allocs := uint64(math.MaxUint64), uint64(0)
		for range 3 {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			const runs = 4
			for range runs {
				write()
			}
			runtime.ReadMemStats(&m1)
			if p := (m1.TotalAlloc - m0.TotalAlloc) / runs; p < per {
				per, allocs = p, (m1.Mallocs-m0.Mallocs)/runs
			}
		}
		t.Logf("%v: %d bytes, %d allocations per archive", c, per, allocs)
		if per > 16<<10 {
			t.Errorf("%v: %d bytes per archive once warm", c, per)
		}
	}
}
