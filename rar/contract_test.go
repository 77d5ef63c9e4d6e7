package rar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

const contractData = "../testdata/rarcontract"

// rar5Writer builds small RAR5 archives by hand (technote "RAR 5.0
// archive format"), for cases the real tools do not write: copy chains,
// copies of missing files, headers that lie about sizes.
type rar5Writer struct{ b []byte }

func appendVint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func newRAR5Writer() *rar5Writer {
	w := &rar5Writer{b: append([]byte(nil), sig5...)}
	w.block(1, 0, appendVint(nil, 0), nil, -1) // main header, no flags
	return w
}

// block appends a header: CRC32, size, type, flags, extra and data sizes.
func (w *rar5Writer) block(typ, flags uint64, fields, extra []byte, dataSize int64) {
	if len(extra) > 0 {
		flags |= hfl5Extra
	}
	if dataSize >= 0 {
		flags |= hfl5Data
	}
	h := appendVint(nil, typ)
	h = appendVint(h, flags)
	if len(extra) > 0 {
		h = appendVint(h, uint64(len(extra)))
	}
	if dataSize >= 0 {
		h = appendVint(h, uint64(dataSize))
	}
	h = append(append(h, fields...), extra...)
	body := append(appendVint(nil, uint64(len(h))), h...)
	w.b = binary.LittleEndian.AppendUint32(w.b, crc32.ChecksumIEEE(body))
	w.b = append(w.b, body...)
}

// file appends a file header and its data. crc < 0: no CRC field.
func (w *rar5Writer) file(name string, size int64, ci uint64, crc int64, data []byte, extra []byte) {
	var ff uint64
	if crc >= 0 {
		ff |= fhd5CRC
	}
	f := appendVint(nil, ff)
	f = appendVint(f, uint64(size))
	f = appendVint(f, 0o100644)
	if crc >= 0 {
		f = binary.LittleEndian.AppendUint32(f, uint32(crc))
	}
	f = appendVint(f, ci)
	f = appendVint(f, 1) // Unix
	f = appendVint(f, uint64(len(name)))
	f = append(f, name...)
	w.block(2, 0, f, extra, int64(len(data)))
	w.b = append(w.b, data...)
}

// copyOf appends a file copy (redirection type 5) of target.
func (w *rar5Writer) copyOf(name, target string, size int64) {
	rec := appendVint(nil, fx5Redir)
	rec = appendVint(rec, 5)
	rec = appendVint(rec, 0)
	rec = appendVint(rec, uint64(len(target)))
	rec = append(rec, target...)
	w.file(name, size, 0, -1, nil, append(appendVint(nil, uint64(len(rec))), rec...))
}

func (w *rar5Writer) bytes() []byte {
	w.block(5, 0, appendVint(nil, 0), nil, -1)
	return w.b
}

func openBytes(t *testing.T, b []byte, cfg *arc.Config) *Archive {
	t.Helper()
	a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// readStream reads every entry through the forward-only Reader; entries
// map name to content or error.
func streamAll(t *testing.T, b []byte, cfg *arc.Config) (names []string, data map[string][]byte, errs map[string]error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, errs = map[string][]byte{}, map[string]error{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name)
		var buf bytes.Buffer
		_, err = io.Copy(&buf, r)
		data[e.Name], errs[e.Name] = buf.Bytes(), err
	}
}

// TestFileCopyChain: 40,000 copies each naming the one before resolve to
// the first source in linear time and all read its content.
func TestFileCopyChain(t *testing.T) {
	src := bytes.Repeat([]byte("chain source\n"), 80)
	const n = 40000
	w := newRAR5Writer()
	w.file("s0", int64(len(src)), 0, int64(crc32.ChecksumIEEE(src)), src, nil)
	w.copyOf("c1", "s0", int64(len(src)))
	for k := 2; k <= n; k++ {
		w.copyOf(fmt.Sprintf("c%d", k), fmt.Sprintf("c%d", k-1), int64(len(src)))
	}
	b := w.bytes()
	if out := os.Getenv("UNARC_WRITE_CHAIN"); out != "" {
		os.WriteFile(out, b, 0o644) // for timing the command-line tool
	}
	start := testutil.CPUTime()
	a := openBytes(t, b, nil)
	for i := range a.Entries() {
		got, err := readAll(a, i)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("entry %d: %v (%d bytes)", i, err, len(got))
		}
	}
	if d := testutil.CPUSince(start); d > 3*time.Second && !raceEnabled {
		t.Errorf("%d chained copies took %v of CPU", n, d)
	}
	for _, i := range []int{1, n / 2, n} {
		if got := a.files[i].copyOf; got != 0 {
			t.Errorf("copy %d resolves to %d, want 0", i, got)
		}
	}
}

// TestFileCopyMissing: a copy of an entry that is not there (or of
// itself, or of such a copy) is ErrCorrupt in both APIs.
func TestFileCopyMissing(t *testing.T) {
	src := []byte("present\n")
	w := newRAR5Writer()
	w.file("s", int64(len(src)), 0, int64(crc32.ChecksumIEEE(src)), src, nil)
	w.copyOf("missing", "nope", 8)
	w.copyOf("self", "self", 8)
	w.copyOf("of-missing", "missing", 8)
	w.copyOf("good", "s", 8)
	b := w.bytes()
	a := openBytes(t, b, nil)
	for i, e := range a.Entries() {
		got, err := readAll(a, i)
		if e.Name == "s" || e.Name == "good" {
			if err != nil || !bytes.Equal(got, src) {
				t.Errorf("%s: %q, %v", e.Name, got, err)
			}
			continue
		}
		if !errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrInsecurePath) {
			t.Errorf("Archive %s: got %v, want ErrCorrupt", e.Name, err)
		}
	}
	_, _, rerrs := streamAll(t, b, nil)
	for _, name := range []string{"missing", "self", "of-missing"} {
		if !errors.Is(rerrs[name], errs.ErrCorrupt) {
			t.Errorf("Reader %s: got %v, want ErrCorrupt", name, rerrs[name])
		}
	}
	if rerrs["s"] != nil || !errors.Is(rerrs["good"], errs.ErrUnsupported) {
		t.Errorf("Reader: s %v, good %v (want the root to copy the extracted file)", rerrs["s"], rerrs["good"])
	}
}

// TestFileCopies100: 100 references to one solid 790 KB file (rar -oi)
// read from the source's kept content, not by decoding it 100 times.
func TestFileCopies100(t *testing.T) {
	path := filepath.Join(contractData, "copies100.rar")
	a, err := openPath(t, path, "")
	if err != nil {
		t.Fatal(err)
	}
	start := testutil.CPUTime()
	var want []byte
	copies := 0
	for i, e := range a.Entries() {
		rc, err := a.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		if e.Link == arc.LinkCopy {
			copies++
			if _, ok := rc.(*memReader); !ok {
				t.Errorf("%s: copy not served from the kept source (%T)", e.Name, rc)
			}
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || int64(len(got)) != e.Size {
			t.Fatalf("%s: %d bytes, %v", e.Name, len(got), err)
		}
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from the source", e.Name)
		}
	}
	if copies != 100 {
		t.Fatalf("%d copies, want 100", copies)
	}
	d := testutil.CPUSince(start)
	t.Logf("100 copies of %d bytes read in %v of CPU", len(want), d)
	if d > 2*time.Second && !raceEnabled {
		t.Errorf("took %v of CPU", d)
	}
	// Served copies allocate only their handle.
	last := len(a.Entries()) - 1
	allocs := testing.AllocsPerRun(20, func() {
		rc, _ := a.Open(last)
		io.Copy(io.Discard, rc)
		rc.Close()
	})
	if allocs > 3 {
		t.Errorf("reading a kept copy: %.0f allocs", allocs)
	}
	// With the cache too small for the source, copies decode it again
	// and still read right.
	f, _ := os.Open(path)
	defer f.Close()
	st, _ := f.Stat()
	small := &arc.Config{Limits: arc.Limits{MaxMemory: 1 << 20}}
	b, err := Open(f, st.Size(), conf.From(small))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, i := range []int{last, 1, 0} {
		got, err := readAll(b, i)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("small cache, entry %d: %v", i, err)
		}
	}
	if unrar, err := exec.LookPath("unrar"); err == nil {
		dir := t.TempDir()
		if out, err := exec.Command(unrar, "x", "-idq", "-o+", path, dir+"/").CombinedOutput(); err != nil {
			t.Fatalf("unrar: %v %s", err, out)
		}
		ref, _ := os.ReadFile(filepath.Join(dir, "copy57.txt"))
		if !bytes.Equal(ref, want) {
			t.Error("content differs from unrar's")
		}
	}
}

// TestSymlinkRAR5Read: reading a RAR5 symlink gives its target text and
// as many bytes as Size says, in both APIs.
func TestSymlinkRAR5Read(t *testing.T) {
	path := filepath.Join(testdata, "rar5_links.rar")
	a, err := openPath(t, path, "")
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for i, e := range a.Entries() {
		if e.Link != arc.LinkSymlink {
			continue
		}
		links++
		got, err := readAll(a, i)
		if err != nil || string(got) != e.LinkTarget || e.Size != int64(len(got)) || e.LinkTarget == "" {
			t.Errorf("Archive %s: %q (Size %d), %v; target %q", e.Name, got, e.Size, err, e.LinkTarget)
		}
	}
	if links != 2 {
		t.Fatalf("%d symlinks", links)
	}
	data, _ := os.ReadFile(path)
	names, got, rerrs := streamAll(t, data, nil)
	for _, n := range names {
		for _, e := range a.Entries() {
			if e.Name == n && e.Link == arc.LinkSymlink && (string(got[n]) != e.LinkTarget || rerrs[n] != nil) {
				t.Errorf("Reader %s: %q, %v", n, got[n], rerrs[n])
			}
		}
	}
}

// unrarFiles extracts path with unrar and returns name -> content.
func unrarFiles(t *testing.T, path string, args ...string) map[string]string {
	t.Helper()
	unrar, err := exec.LookPath("unrar")
	if err != nil {
		t.Skip("unrar not installed")
	}
	dir := t.TempDir()
	cmd := append([]string{"x", "-idq", "-o+"}, args...)
	if out, err := exec.Command(unrar, append(cmd, path, dir+"/")...).CombinedOutput(); err != nil {
		t.Fatalf("unrar: %v %s", err, out)
	}
	m := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(b)
	}
	return m
}

// TestFileVersions: older versions (rar -ver) are skipped by default, as
// unrar x does, and reported by Warnings; FileVersions lists them.
func TestFileVersions(t *testing.T) {
	for _, name := range []string{"versions5.rar", "versions5s.rar", "versions4.rar"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(contractData, name)
			want := unrarFiles(t, path)
			if len(want) != 2 || want["f.txt"] != "three33\n" {
				t.Fatalf("unrar gives %q", want)
			}
			a, err := openPath(t, path, "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for i, e := range a.Entries() {
				b, err := readAll(a, i)
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				if e.Index != i {
					t.Errorf("%s: Index %d, want %d", e.Name, e.Index, i)
				}
				got[e.Name] = string(b)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Archive: %q, unrar: %q", got, want)
			}
			if w := a.Warnings(); len(w) != 1 || !strings.Contains(w[0].Error(), "version") {
				t.Errorf("Warnings %v", w)
			}
			data, _ := os.ReadFile(path)
			names, sdata, serrs := streamAll(t, data, nil)
			if len(names) != 2 {
				t.Errorf("Reader lists %q", names)
			}
			for _, n := range names {
				if serrs[n] != nil || string(sdata[n]) != want[n] {
					t.Errorf("Reader %s: %q, %v", n, sdata[n], serrs[n])
				}
			}
			r, _ := NewReader(bytes.NewReader(data), nil)
			for {
				if _, err := r.Next(); err != nil {
					break
				}
			}
			if w := r.Warnings(); len(w) != 1 {
				t.Errorf("Reader warnings %v", w)
			}
			r.Close()

			// FileVersions: every version is listed and reads as written.
			cfg := &arc.Config{FileVersions: true}
			all := openBytes(t, data, cfg)
			got = map[string]string{}
			for i, e := range all.Entries() {
				b, err := readAll(all, i)
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				got[e.Name] = string(b)
			}
			if name != "versions4.rar" {
				if got["f.txt;1"] != "one\n" || got["f.txt;2"] != "two2\n" || got["f.txt"] != "three33\n" || len(got) != 4 {
					t.Errorf("FileVersions: %q", got)
				}
			} else if got["f.txt"] != "three33\n" || len(got) != 4 {
				t.Errorf("FileVersions: %q", got)
			}
			if len(all.Warnings()) != 0 {
				t.Errorf("FileVersions warnings %v", all.Warnings())
			}
			names, _, _ = streamAll(t, data, cfg)
			if len(names) != 4 {
				t.Errorf("Reader with FileVersions lists %q", names)
			}
		})
	}
}

// volumeBytes returns what unrar extracts from the set, as the reference.
func wantVolumes(t *testing.T, set string) map[string][]byte {
	small := []byte("small file in the first volume\n")
	var big bytes.Buffer
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&big, "volume record %d: %d\n", i, (i*31337)%1000000)
	}
	return map[string][]byte{"small.txt": small, "big.txt": big.Bytes()}
}

// TestVolumeMiddle: opening any volume of a set opens it from the first.
func TestVolumeMiddle(t *testing.T) {
	for _, set := range []string{"volset", "volsetr4"} {
		want := wantVolumes(t, set)
		for k := 1; k <= 4; k++ {
			path := filepath.Join(contractData, fmt.Sprintf("%s.part%d.rar", set, k))
			a, err := openPath(t, path, "")
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if len(a.Entries()) != 2 {
				t.Fatalf("%s: %d entries", path, len(a.Entries()))
			}
			for i, e := range a.Entries() {
				got, err := readAll(a, i)
				if err != nil || !bytes.Equal(got, want[e.Name]) {
					t.Errorf("%s: %s: %v", path, e.Name, err)
				}
			}
			a.Close()
			// The Reader restarts from the first volume too.
			f, _ := os.Open(path)
			r, err := NewReader(f, conf.From(config(t, path, "")))
			if err != nil {
				t.Fatalf("Reader %s: %v", path, err)
			}
			n := 0
			for {
				e, err := r.Next()
				if err != nil {
					if err != io.EOF {
						t.Errorf("Reader %s: %v", path, err)
					}
					break
				}
				n++
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, want[e.Name]) {
					t.Errorf("Reader %s: %s: %v", path, e.Name, err)
				}
			}
			if n != 2 {
				t.Errorf("Reader %s: %d entries", path, n)
			}
			r.Close()
			f.Close()
			if k == 1 {
				continue
			}
			// Without a way to open the first volume: fail, naming it.
			data, _ := os.ReadFile(path)
			_, err = Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Name: path}))
			if !errors.Is(err, errs.ErrTruncated) || !strings.Contains(err.Error(), "first volume") {
				t.Errorf("%s alone: %v", path, err)
			}
			dir := t.TempDir()
			lone := filepath.Join(dir, filepath.Base(path))
			os.WriteFile(lone, data, 0o644)
			_, err = Open(bytes.NewReader(data), int64(len(data)), conf.From(config(t, lone, "")))
			if !errors.Is(err, errs.ErrTruncated) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), set+".part1.rar") {
				t.Errorf("%s without part1: %v", path, err)
			}
			_, err = NewReader(bytes.NewReader(data), conf.From(config(t, lone, "")))
			if !errors.Is(err, errs.ErrTruncated) || !strings.Contains(err.Error(), set+".part1.rar") {
				t.Errorf("Reader %s without part1: %v", path, err)
			}
		}
	}
}

// TestVolumeMissingLater: with only the first volumes, Open lists what
// they hold; the complete file reads, the one needing the missing volume
// fails with ErrTruncated matching fs.ErrNotExist and naming it.
func TestVolumeMissingLater(t *testing.T) {
	for _, set := range []string{"volset", "volsetr4"} {
		want := wantVolumes(t, set)
		dir := t.TempDir()
		for k := 1; k <= 2; k++ {
			b, _ := os.ReadFile(filepath.Join(contractData, fmt.Sprintf("%s.part%d.rar", set, k)))
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.part%d.rar", set, k)), b, 0o644)
		}
		path := filepath.Join(dir, set+".part1.rar")
		a, err := openPath(t, path, "")
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		for i, e := range a.Entries() {
			got, err := readAll(a, i)
			switch e.Name {
			case "small.txt":
				if err != nil || !bytes.Equal(got, want[e.Name]) {
					t.Errorf("%s small.txt: %v", set, err)
				}
			case "big.txt":
				if !errors.Is(err, errs.ErrTruncated) || !errors.Is(err, fs.ErrNotExist) ||
					!strings.Contains(err.Error(), set+".part3.rar") || errors.Is(err, errs.ErrCorrupt) {
					t.Errorf("%s big.txt: %v", set, err)
				}
			}
		}
		if len(a.Entries()) != 2 || len(a.Warnings()) != 1 || !errors.Is(a.Warnings()[0], fs.ErrNotExist) {
			t.Errorf("%s: %d entries, warnings %v", set, len(a.Entries()), a.Warnings())
		}
	}
}

// TestJoinSplitError: an error from joining ".001" pieces is returned,
// not dropped (it used to leave a nil volume behind).
func TestJoinSplitError(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join(testdata, "rar5_m0.rar"))
	huge := (int64(1) << 62) + 12345
	cfg := &arc.Config{Name: "x.rar.001", OpenVolume: func(name string) (io.ReaderAt, int64, error) {
		if strings.HasSuffix(name, ".002") || strings.HasSuffix(name, ".003") {
			return bytes.NewReader([]byte("not a rar marker")), huge, nil
		}
		return nil, 0, fs.ErrNotExist
	}}
	_, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("got %v, want the joiner's ErrLimit", err)
	}
}

// TestEntrySizeMismatch: a compressed entry without a checksum that
// decodes to less than its declared size is ErrCorrupt; cut packed data is
// ErrTruncated; in both APIs (Read and WriteTo).
func TestEntrySizeMismatch(t *testing.T) {
	path := filepath.Join(testdata, "rar5_m3.rar")
	a, err := openPath(t, path, "")
	if err != nil {
		t.Fatal(err)
	}
	var f *file
	for _, g := range a.files {
		if g.e.Name == "text.txt" {
			f = g
		}
	}
	if f == nil || f.method == 0 || len(f.parts) != 1 {
		t.Fatal("no compressed text.txt")
	}
	plain, err := readAll(a, f.e.Index)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	packed := raw[f.parts[0].off : f.parts[0].off+f.parts[0].size]
	n := uint64(0)
	for int64(128<<10)<<n < f.dict {
		n++
	}
	ci := uint64(f.method)<<7 | n<<10
	for _, tc := range []struct {
		name   string
		size   int64
		packed []byte
		want   error
	}{
		{"exact", int64(len(plain)), packed, nil},
		{"double", 2 * int64(len(plain)), packed, errs.ErrCorrupt},
		{"cut", int64(len(plain)), packed[:len(packed)/2], errs.ErrTruncated},
	} {
		w := newRAR5Writer()
		w.file("t.txt", tc.size, ci, -1, tc.packed, nil)
		b := w.bytes()
		check := func(api string, got []byte, err error) {
			t.Helper()
			if tc.want == nil {
				if err != nil || !bytes.Equal(got, plain) {
					t.Errorf("%s %s: %v", tc.name, api, err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !isSentinel(err) {
				t.Errorf("%s %s: got %v, want %v", tc.name, api, err, tc.want)
			}
			for _, s := range []error{errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum} {
				if s != tc.want && errors.Is(err, s) {
					t.Errorf("%s %s: %v also matches %v", tc.name, api, err, s)
				}
			}
		}
		x := openBytes(t, b, nil)
		got, err := readAll(x, 0)
		check("Archive Read", got, err)
		rc, _ := x.Open(0)
		var buf bytes.Buffer
		_, err = rc.(io.WriterTo).WriteTo(&buf)
		check("Archive WriteTo", buf.Bytes(), err)
		rc.Close()
		_, data, rerrs := streamAll(t, b, nil)
		check("Reader", data["t.txt"], rerrs["t.txt"])
		r, _ := NewReader(bytes.NewReader(b), nil)
		r.Next()
		got, err = io.ReadAll(struct{ io.Reader }{r})
		check("Reader Read", got, err)
		r.Close()
	}
}

// TestPartNamesWithoutFlag: a RAR4 set written with old naming but whose
// files are named ".partN.rar" opens in both APIs (the Reader used to
// lack the fallback the Archive had).
func TestPartNamesWithoutFlag(t *testing.T) {
	dir := t.TempDir()
	for src, dst := range map[string]string{"rar4_oldvol.rar": "x.part1.rar", "rar4_oldvol.r00": "x.part2.rar"} {
		b, err := os.ReadFile(filepath.Join(testdata, src))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, dst), b, 0o644)
	}
	path := filepath.Join(dir, "x.part1.rar")
	a, err := openPath(t, path, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := readAll(a, 0)
	if err != nil || len(want) < 30000 {
		t.Fatalf("Archive: %d bytes, %v", len(want), err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	r, err := NewReader(f, conf.From(config(t, path, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Reader: %d bytes, %v", len(got), err)
	}
}
