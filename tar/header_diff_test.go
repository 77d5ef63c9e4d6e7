package tar

import (
	"archive/tar"
	"bytes"
	"compress/bzip2"
	"encoding/base64"
	"errors"
	"fmt"
	"go/build"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// The header reader is checked against archive/tar: the same headers
// (every field of tar.Header), the same content, failing where it fails.
//
// Deliberate differences (allowed by sameFailure):
//   - A PAX header or GNU long name whose size field says more than 1 MiB
//     is refused at once as corrupt (errTooLong); archive/tar reads 1 MiB
//     of it first, so in a stream shorter than that its error is the
//     truncation it meets on the way.

// diffInputs are the tar streams the test compares on: Go's own
// archive/tar test files, the repository's tars and the shared corpus's,
// compressed ones decoded first.
func diffInputs(t testutil.TB) map[string][]byte {
	in := map[string][]byte{}
	add := func(dir string, rec bool) {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				if err == nil && !rec && p != dir {
					return filepath.SkipDir
				}
				return nil
			}
			if b := tarStream(t, p); b != nil {
				in[p] = b
			}
			return nil
		})
	}
	add(filepath.Join(build.Default.GOROOT, "src", "archive", "tar", "testdata"), false)
	add(filepath.Join("..", "testdata", "tar"), false)
	add(filepath.Join("..", "..", "shared", "corpus"), true)
	in["signed-checksum"] = signedChecksumTar(t)
	// A V7 directory named with a trailing slash and type '\x00'.
	in["v7-dir-slash"] = cat(rawBlock("dir/", 0, 0, false), rawBlock("dir/f", 0, 3, false), pad("abc"), make([]byte, 1024))
	// Times before 1970 with fractions ("-1.5": half a second before -1).
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	w.WriteHeader(&tar.Header{Name: "old", Typeflag: tar.TypeReg, Format: tar.FormatPAX,
		ModTime: time.Unix(-2, 5e8), AccessTime: time.Unix(-100, 1), ChangeTime: time.Unix(5, 999999999)})
	w.Close()
	in["pax-neg-times"] = buf.Bytes()
	// PAX 0.1 sparse files whose stored data is longer (unreferenced
	// data) or shorter (missing data) than their map says.
	sparse := paxRecord("GNU.sparse.major", "0") + paxRecord("GNU.sparse.minor", "1") +
		paxRecord("GNU.sparse.numblocks", "1") + paxRecord("GNU.sparse.map", "2,3") + paxRecord("GNU.sparse.size", "10")
	for name, data := range map[string]string{"pax-sparse-unref": "abcde", "pax-sparse-missing": "ab"} {
		in[name] = cat(rawBlock("PaxHeaders/s", 'x', len(sparse), true), pad(sparse),
			rawBlock("s", '0', len(data), true), pad(data), make([]byte, 1024))
	}
	return in
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// pad is s in whole blocks.
func pad(s string) []byte { return append([]byte(s), make([]byte, -len(s)&(blockSize-1))...) }

// rawBlock is a header block written by hand: V7, or ustar.
func rawBlock(name string, flag byte, size int, ustar bool) []byte {
	b := make([]byte, blockSize)
	copy(b, name)
	copy(b[100:], "0000644\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	copy(b[136:], "14540000000\x00")
	b[156] = flag
	if ustar {
		copy(b[257:], "ustar\x0000")
	}
	var sum int
	for i, c := range b {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// paxRecord is "len key=value\n".
func paxRecord(k, v string) string {
	n := len(k) + len(v) + 3
	n += len(fmt.Sprint(n))
	if m := len(k) + len(v) + 3 + len(fmt.Sprint(n)); m != n {
		n = m
	}
	return fmt.Sprintf("%d %s=%s\n", n, k, v)
}

// signedChecksumTar is a GNU tar whose header has bytes above 0x7f (a
// UTF-8 name) and the checksum old Sun tar wrote: the sum of the bytes
// read as signed.
func signedChecksumTar(t testutil.TB) []byte {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	if err := w.WriteHeader(&tar.Header{Name: "größe/naïve.txt", Size: 3, Mode: 0o644, Format: tar.FormatGNU}); err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("abc"))
	w.Close()
	b := buf.Bytes()
	var sum int64
	for i, c := range b[:blockSize] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int64(int8(c))
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// tarStream is the tar stream in file p: as it is, base64-decoded (Go's
// .tar.base64) or decompressed; nil when p is not a tar at all.
func tarStream(t testutil.TB, p string) []byte {
	low := strings.ToLower(p)
	if !strings.Contains(low, ".tar") && !strings.HasSuffix(low, ".tgz") {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	switch {
	case strings.HasSuffix(low, ".base64"):
		if data, err = base64.StdEncoding.DecodeString(string(data)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	case strings.HasSuffix(low, ".bz2") && strings.Contains(p, build.Default.GOROOT):
		// Go's bzip2 files hold huge sparse or header bombs: keep their
		// first 16 MiB (1 MiB when short), enough for their headers.
		keep := int64(16 << 20)
		if testutil.Short() {
			keep = 1 << 20
		}
		data, _ = io.ReadAll(io.LimitReader(bzip2.NewReader(bytes.NewReader(data)), keep))
	case detectKind(data) != kindNone:
		var c cursor
		lim := conf.MustLimits(arc.Limits{})
		if _, err := c.start(bytes.NewReader(data), int64(len(data)), detectKind(data), &lim, 1, c.hb[:]); err != nil {
			return nil
		}
		data, err = io.ReadAll(&c.head)
		c.close()
		if err != nil {
			return nil
		}
	}
	if len(data) < blockSize || (!isHeader(data) && blockFormat((*[blockSize]byte)(data)) == 0) {
		return nil
	}
	return data
}

func TestHeaderReaderDiff(t *testing.T) {
	in := diffInputs(t)
	if len(in) < 20 {
		t.Fatalf("only %d tar streams found", len(in))
	}
	headers, failing := 0, 0
	max := 4 << 20 // content compared per entry
	if testutil.Short() {
		max = 64 << 10
	}
	for name, data := range in {
		t.Run(filepath.Base(name), func(t *testing.T) {
			// Also cut short: inside the first header, and mid-stream.
			if !testutil.Short() || len(data) <= 64<<10 {
				diffTar(t, data[:blockSize-1], max)
				diffTar(t, data[:len(data)/2], max)
				diffTar(t, data[:len(data)-1], max)
			}
			n, failed := diffTar(t, data, max)
			headers += n
			if failed {
				failing++
			}
		})
	}
	t.Logf("%d streams, %d headers, %d streams archive/tar fails on", len(in), headers, failing)
	if failing < 5 {
		t.Errorf("only %d failing inputs: the error paths are not compared", failing)
	}
}

// diffTar reads data with archive/tar and with the header reader, over a
// seekable source and over a plain stream, and reports where they differ;
// it returns the number of headers archive/tar read, and whether it
// failed. Content is compared up to max bytes per entry (Next skips the
// rest).
func diffTar(t *testing.T, data []byte, max int) (int, bool) {
	t.Helper()
	want := readTar(tar.NewReader(bytes.NewReader(data)), max)
	for _, seek := range []bool{true, false} {
		var h headerReader
		if seek {
			h.reset(&seekReader{ra: bytes.NewReader(data), size: int64(len(data))})
		} else {
			h.reset(struct{ io.Reader }{bytes.NewReader(data)})
		}
		got := readTar(&h, max)
		h.release()
		compareSteps(t, fmt.Sprintf("seek=%v", seek), want, got)
	}
	if len(want) == 0 {
		return 0, false
	}
	last := want[len(want)-1]
	return len(want), last.err != nil || last.rerr != nil
}

// step is one Next and the content read after it.
type step struct {
	h       *tar.Header
	err     error
	content []byte
	rerr    error // from reading the content (nil at its end)
}

type tarNexter interface {
	Next() (*tar.Header, error)
	Read([]byte) (int, error)
}

func readTar(tr tarNexter, max int) []step {
	var steps []step
	buf := make([]byte, 32<<10)
	for range 100000 {
		h, err := tr.Next()
		s := step{h: h, err: err}
		if err != nil {
			if err == io.EOF {
				return steps
			}
			return append(steps, s)
		}
		var c bytes.Buffer
		for c.Len() < max {
			n, err := tr.Read(buf[:min(len(buf), max-c.Len())])
			c.Write(buf[:n])
			if err != nil {
				if err != io.EOF {
					s.rerr = err
				}
				break
			}
		}
		s.content = c.Bytes()
		steps = append(steps, s)
		if s.rerr != nil {
			return steps
		}
	}
	return steps
}

func compareSteps(t *testing.T, mode string, want, got []step) {
	t.Helper()
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) {
			t.Errorf("%s: archive/tar gives %d headers, ours %d", mode, len(want), len(got))
			return
		}
		w, g := want[i], got[i]
		if (w.err == nil) != (g.err == nil) || (w.err != nil && !sameFailure(w.err, g.err)) {
			t.Errorf("%s: header %d: archive/tar: %v, ours: %v", mode, i, w.err, g.err)
			return
		}
		if w.err != nil {
			return
		}
		if w.h.Typeflag == tar.TypeXGlobalHeader && w.h.PAXRecords == nil && g.h.PAXRecords == nil {
			// A bad record in a global header: archive/tar applied the
			// records before it in random map order and ignored the
			// error (mergePAX's doc), so only the kind is comparable.
			if w.h.Typeflag != g.h.Typeflag || w.h.Format != g.h.Format {
				t.Errorf("%s: header %d differs:\narchive/tar %+v\nours        %+v", mode, i, *w.h, *g.h)
				return
			}
		} else if !reflect.DeepEqual(w.h, g.h) {
			t.Errorf("%s: header %d differs:\narchive/tar %+v\nours        %+v", mode, i, *w.h, *g.h)
			return
		}
		if !bytes.Equal(w.content, g.content) {
			t.Errorf("%s: entry %d (%s): content differs (%d and %d bytes)", mode, i, w.h.Name, len(w.content), len(g.content))
			return
		}
		if (w.rerr == nil) != (g.rerr == nil) || (w.rerr != nil && !sameFailure(w.rerr, g.rerr)) {
			t.Errorf("%s: entry %d (%s): reading: archive/tar: %v, ours: %v", mode, i, w.h.Name, w.rerr, g.rerr)
			return
		}
	}
}

// sameFailure: both errors are truncation, or both are not (see the
// deliberate differences above).
func sameFailure(theirs, ours error) bool {
	if errors.Is(ours, errTooLong) {
		return true
	}
	return errors.Is(tarErr(theirs), errs.ErrTruncated) == errors.Is(tarErr(ours), errs.ErrTruncated)
}

// FuzzHeaderReader: on any input the header reader gives what
// archive/tar gives. Its seeds are whole tar files, so run it with a
// bounded minimization, or Go's fuzzer spends a minute shrinking each
// new input and reports a few dozen executions:
//
//	go test -run '^$' -fuzz '^FuzzHeaderReader$' -fuzzminimizetime 10x ./tar
//
// (about 7,500 executions/s on 2 workers; 82 in 21 s without the flag).
func FuzzHeaderReader(f *testing.F) {
	for _, b := range diffInputs(f) {
		if len(b) <= 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 512<<20)()
		diffTar(t, data, 64<<10)
	})
}

// TestHeaderReaderAllocs: listing a stream (data skipped by reading)
// allocates the headers and their names, nothing per header for the
// skipping, also right after a GC has emptied the sync.Pools (io.Discard
// takes its 8 KiB buffer from one: skipping through it, as archive/tar
// does, allocated 8 KiB after every GC).
func TestHeaderReaderAllocs(t *testing.T) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for i := range 100 {
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%03d", i), Size: 1000, Mode: 0o644, Uname: "u", Gname: "g"})
		w.Write(make([]byte, 1000))
	}
	w.Close()
	var h headerReader
	defer h.release()
	list := func() {
		h.reset(struct{ io.Reader }{bytes.NewReader(buf.Bytes())})
		for {
			if _, err := h.Next(); err == io.EOF {
				return
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
	list() // the skip buffer comes from the pool once
	// The least of three tries: TotalAlloc counts the whole process.
	got := uint64(math.MaxUint64)
	for range 3 {
		runtime.GC()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		list()
		runtime.ReadMemStats(&after)
		got = min(got, after.TotalAlloc-before.TotalAlloc)
	}
	// A Header is 224 bytes (its size class), a name 8; 2 KiB more for
	// the race detector's own.
	if limit := uint64(100*(224+8) + 2048); got > limit {
		t.Errorf("listing 100 headers allocated %d bytes, want at most %d", got, limit)
	}
}
