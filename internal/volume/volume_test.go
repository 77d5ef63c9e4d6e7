package volume

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

func TestSplitNames(t *testing.T) {
	for _, tc := range []struct {
		name          string
		prefix        string
		width, n      int
		ok            bool
		next, firstOf string
	}{
		{"a.7z.001", "a.7z.", 3, 1, true, "a.7z.002", "a.7z.001"},
		{"a.009", "a.", 3, 9, true, "a.010", "a.001"},
		{"a.999", "a.", 3, 999, true, "a.1000", "a.001"},
		{"a.1000", "a.", 4, 1000, true, "a.1001", "a.0001"},
		{"dir.v1/a.0001", "dir.v1/a.", 4, 1, true, "dir.v1/a.0002", "dir.v1/a.0001"},
		{"a.01", "", 0, 0, false, "", ""},
		{"a.7z", "", 0, 0, false, "", ""},
		{"a.00x", "", 0, 0, false, "", ""},
		{"a.001/b", "", 0, 0, false, "", ""},
		{"noext", "", 0, 0, false, "", ""},
		{"a.1234567890", "", 0, 0, false, "", ""},
	} {
		prefix, width, n, ok := SplitPart(tc.name)
		if prefix != tc.prefix || width != tc.width || n != tc.n || ok != tc.ok {
			t.Errorf("SplitPart(%q) = %q %d %d %v", tc.name, prefix, width, n, ok)
			continue
		}
		if !ok {
			continue
		}
		if got := SplitName(prefix, width, n+1); got != tc.next {
			t.Errorf("next of %q = %q, want %q", tc.name, got, tc.next)
		}
		if got := SplitName(prefix, width, 1); got != tc.firstOf {
			t.Errorf("first of %q = %q, want %q", tc.name, got, tc.firstOf)
		}
	}
}

func TestRARNames(t *testing.T) {
	cases := []struct {
		in, next, first string
		new             bool
	}{
		{"a.part1.rar", "a.part2.rar", "a.part1.rar", true},
		{"a.part9.rar", "a.part10.rar", "a.part1.rar", true},
		{"a.part09.rar", "a.part10.rar", "a.part01.rar", true},
		{"a.part99.rar", "a.part100.rar", "a.part01.rar", true},
		{"A.PART3.RAR", "A.PART4.RAR", "A.PART1.RAR", true},
		{"x/v1.2/a.part001.rar", "x/v1.2/a.part002.rar", "x/v1.2/a.part001.rar", true},
		{"a.part1.exe", "a.part2.rar", "a.part1.exe", true},
		{"a.rar", "a.r00", "a.rar", false},
		{"a.r00", "a.r01", "a.rar", false},
		{"a.r09", "a.r10", "a.rar", false},
		{"a.r99", "a.s00", "a.rar", false},
		{"a.s99", "a.t00", "a.rar", false},
		{"A.RAR", "A.R00", "A.RAR", false},
		{"A.R41", "A.R42", "A.RAR", false},
		{"a.rar", "a.r00", "a.rar", true}, // new naming, but no part number
		{"a.part2.rar", "a.part2.r00", "a.part2.rar", false},
	}
	for _, tc := range cases {
		if got := RARNext(tc.in, tc.new); got != tc.next {
			t.Errorf("RARNext(%q, %v) = %q, want %q", tc.in, tc.new, got, tc.next)
		}
		if got := RARFirst(tc.in, tc.new); got != tc.first {
			t.Errorf("RARFirst(%q, %v) = %q, want %q", tc.in, tc.new, got, tc.first)
		}
	}
	if len(cases) != 16 {
		t.Fatalf("%d cases", len(cases))
	}
	// Walking a whole old-style set reaches every name once.
	name, seen := "a.rar", map[string]bool{}
	for range 300 {
		name = RARNext(name, false)
		if seen[name] {
			t.Fatalf("old naming repeats %s", name)
		}
		seen[name] = true
	}
	if name != "a.t99" {
		t.Errorf("300 volumes after a.rar: %s, want a.t99", name)
	}
}

func TestZIPDisk(t *testing.T) {
	for _, tc := range []struct {
		last string
		i    int
		want string
	}{
		{"a.zip", 0, "a.z01"},
		{"a.zip", 98, "a.z99"},
		{"a.zip", 99, "a.z100"},
		{"A.ZIP", 1, "A.z02"},
		{"a.zipx", 0, "a.zx01"},
		{"dir.d/a", 2, "dir.d/a.z03"},
	} {
		if got := ZIPDisk(tc.last, tc.i); got != tc.want {
			t.Errorf("ZIPDisk(%q, %d) = %q, want %q", tc.last, tc.i, got, tc.want)
		}
	}
}

// memFS is an Opener over named byte slices; it records what it opened
// and what was closed.
type memFS struct {
	files  map[string][]byte
	fail   map[string]error // error returned instead of the file
	opened []string
	open   map[*closer]bool
}

type closer struct {
	*bytes.Reader
	fs *memFS
}

func (c *closer) Close() error {
	if !c.fs.open[c] {
		return errors.New("closed twice")
	}
	delete(c.fs.open, c)
	return nil
}

func (m *memFS) Open(name string) (io.ReaderAt, int64, error) {
	if err := m.fail[name]; err != nil {
		return nil, 0, err
	}
	b, ok := m.files[name]
	if !ok {
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	m.opened = append(m.opened, name)
	if m.open == nil {
		m.open = map[*closer]bool{}
	}
	c := &closer{bytes.NewReader(b), m}
	m.open[c] = true
	return c, int64(len(b)), nil
}

// splitSet cuts data into n parts named prefix+001 ….
func splitSet(prefix string, data []byte, n int) *memFS {
	m := &memFS{files: map[string][]byte{}}
	for i := range n {
		m.files[SplitName(prefix, 3, i+1)] = data[len(data)*i/n : len(data)*(i+1)/n]
	}
	return m
}

func testData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func TestJoinSplit(t *testing.T) {
	data := testData(100000)
	for _, parts := range []int{2, 5, 1000, 1001} {
		m := splitSet("a.7z.", data, parts)
		first := m.files["a.7z.001"]
		c, err := JoinSplit(bytes.NewReader(first), int64(len(first)), "a.7z.001", m.Open, nil)
		if err != nil || c == nil {
			t.Fatalf("%d parts: %v, %v", parts, c, err)
		}
		if c.Len() != parts || c.Size() != int64(len(data)) {
			t.Fatalf("%d parts: joined %d parts, %d bytes", parts, c.Len(), c.Size())
		}
		got, err := io.ReadAll(io.NewSectionReader(c, 0, c.Size()))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d parts: joined bytes differ (%v)", parts, err)
		}
		if parts > 999 && m.opened[len(m.opened)-1] != SplitName("a.7z.", 3, parts) {
			t.Errorf("%d parts: last opened %s", parts, m.opened[len(m.opened)-1])
		}
		if err := c.Close(); err != nil || len(m.open) != 0 {
			t.Errorf("%d parts: Close: %v, %d left open", parts, err, len(m.open))
		}
	}
}

func TestJoinSplitNotASet(t *testing.T) {
	data := testData(1000)
	m := splitSet("a.", data, 2)
	first := bytes.NewReader(m.files["a.001"])
	for _, tc := range []struct {
		name     string
		open     Opener
		isVolume func(io.ReaderAt) bool
	}{
		{"a.002", m.Open, nil}, // not the first part
		{"a.zip", m.Open, nil}, // not a part
		{"a.001", nil, nil},    // no opener
		{"b.001", m.Open, nil}, // a lone .001
		{"a.001", m.Open, func(io.ReaderAt) bool { return true }}, // real volumes
	} {
		c, err := JoinSplit(first, first.Size(), tc.name, tc.open, tc.isVolume)
		if c != nil || err != nil {
			t.Errorf("%s: %v, %v; want no set", tc.name, c, err)
		}
	}
	if len(m.open) != 0 {
		t.Errorf("%d parts left open", len(m.open))
	}
}

// TestJoinSplitGap: a missing middle part is ErrTruncated naming it, and
// matching fs.ErrNotExist; what was opened is closed.
func TestJoinSplitGap(t *testing.T) {
	data := testData(10000)
	m := splitSet("x.", data, 5)
	delete(m.files, "x.003")
	first := bytes.NewReader(m.files["x.001"])
	c, err := JoinSplit(first, first.Size(), "x.001", m.Open, nil)
	if c != nil || !errors.Is(err, errs.ErrTruncated) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(fmt.Sprint(err), "x.003") {
		t.Fatalf("gap: %v, %v", c, err)
	}
	if errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrLimit) {
		t.Errorf("gap matches a second sentinel: %v", err)
	}
	if len(m.open) != 0 {
		t.Errorf("%d parts left open", len(m.open))
	}
}

// TestJoinSplitError: an opener error other than "does not exist" is
// returned as it is, never taken for the end of the set (nor for a gap),
// in the middle of the set and after its last part.
func TestJoinSplitError(t *testing.T) {
	data := testData(10000)
	for _, bad := range []string{"x.003", "x.005"} {
		m := splitSet("x.", data, 4)
		m.fail = map[string]error{bad: fs.ErrPermission}
		first := bytes.NewReader(m.files["x.001"])
		c, err := JoinSplit(first, first.Size(), "x.001", m.Open, nil)
		if c != nil || !errors.Is(err, fs.ErrPermission) || errors.Is(err, errs.ErrTruncated) || !strings.Contains(fmt.Sprint(err), bad) {
			t.Fatalf("%s: permission error: %v, %v", bad, c, err)
		}
		if len(m.open) != 0 {
			t.Errorf("%s: %d parts left open", bad, len(m.open))
		}
	}
}

// TestJoinSplitCap: an opener that never runs out stops at MaxParts.
func TestJoinSplitCap(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 100000 parts")
	}
	opened := 0
	open := func(string) (io.ReaderAt, int64, error) {
		if opened > MaxParts+10 { // ends the test if the cap does not
			return nil, 0, fs.ErrNotExist
		}
		opened++
		return bytes.NewReader(nil), 1, nil
	}
	c, err := JoinSplit(bytes.NewReader([]byte{1}), 1, "x.001", open, nil)
	if c != nil || !errors.Is(err, errs.ErrLimit) || opened != MaxParts {
		t.Fatalf("endless set: %v, %v after %d opens", c, err, opened)
	}
}

func TestOpenPart(t *testing.T) {
	m := &memFS{files: map[string][]byte{"a.part2.rar": []byte("two")}}
	// The second name is tried because the first does not exist.
	_, size, name, err := OpenPart(m.Open, 1, "a.r00", "a.part2.rar")
	if err != nil || name != "a.part2.rar" || size != 3 {
		t.Fatalf("fallback: %s %d %v", name, size, err)
	}
	// Neither exists: ErrTruncated naming the first, matching fs.ErrNotExist.
	_, _, _, err = OpenPart(m.Open, 1, "b.r00", "b.part2.rar")
	if !errors.Is(err, errs.ErrTruncated) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "b.r00") {
		t.Errorf("missing: %v", err)
	}
	// Another error stops the search and is returned.
	m.fail = map[string]error{"a.r00": fs.ErrPermission}
	m.opened = nil
	_, _, _, err = OpenPart(m.Open, 1, "a.r00", "a.part2.rar")
	if !errors.Is(err, fs.ErrPermission) || errors.Is(err, errs.ErrTruncated) || len(m.opened) != 0 {
		t.Errorf("permission: %v, opened %v", err, m.opened)
	}
	// No opener: missing, by number.
	if _, _, _, err = OpenPart(nil, 4); !errors.Is(err, errs.ErrTruncated) || !strings.Contains(err.Error(), "volume 5") {
		t.Errorf("no opener: %v", err)
	}
	// The cap.
	if _, _, _, err = OpenPart(m.Open, MaxParts, "a.part2.rar"); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("cap: %v", err)
	}
}

func TestConcat(t *testing.T) {
	data := testData(3000)
	var c Concat
	if c.Size() != 0 || c.Len() != 0 {
		t.Fatal("zero Concat not empty")
	}
	if n, err := c.ReadAt(make([]byte, 1), 0); n != 0 || err != io.EOF {
		t.Fatalf("empty ReadAt: %d %v", n, err)
	}
	c.Add("p1", bytes.NewReader(data[:1000]), 1000)
	c.Borrow("p2", bytes.NewReader(data[1000:1000]), 0) // an empty part
	c.Add("p3", bytes.NewReader(data[1000:2000]), 1000)
	c.Add("dir/p4", bytes.NewReader(data[2000:2500]), 1000) // declares 500 more than it has
	buf := make([]byte, 1500)
	if n, err := c.ReadAt(buf, 500); n != 1500 || err != nil || !bytes.Equal(buf, data[500:2000]) {
		t.Fatalf("across parts: %d %v", n, err)
	}
	if n, err := c.ReadAt(buf[:10], 1000); n != 10 || err != nil || !bytes.Equal(buf[:10], data[1000:1010]) {
		t.Fatalf("at a part start: %d %v", n, err)
	}
	n, err := c.ReadAt(buf, 1800)
	if n != 700 || !errors.Is(err, errs.ErrTruncated) || !strings.Contains(err.Error(), "volume p4") || strings.Contains(err.Error(), "dir/") {
		t.Fatalf("short part: %d %v", n, err)
	}
	if n, err := c.ReadAt(buf, 2999); n != 0 || !errors.Is(err, errs.ErrTruncated) {
		t.Fatalf("inside the missing tail: %d %v", n, err)
	}
	if n, err := c.ReadAt(buf, 3000); n != 0 || err != io.EOF {
		t.Fatalf("at the end: %d %v", n, err)
	}
	if _, err := c.ReadAt(buf, -1); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("negative offset: %v", err)
	}
	if err := c.Add("huge", bytes.NewReader(nil), 1<<63-1); !errors.Is(err, errs.ErrLimit) || c.Len() != 4 {
		t.Fatalf("overflow: %v, %d parts", err, c.Len())
	}
	if got := c.Starts(); fmt.Sprint(got) != "[0 1000 1000 2000 3000]" {
		t.Errorf("Starts %v", got)
	}
}

// TestConcatReadAtAllocs: reading through the joiner allocates nothing.
func TestConcatReadAtAllocs(t *testing.T) {
	data := testData(1 << 16)
	c := NewConcat(bytes.NewReader(data[:100]), 100, "")
	for i := 100; i < len(data); i += 1000 {
		end := min(i+1000, len(data))
		c.Add("p", bytes.NewReader(data[i:end]), int64(end-i))
	}
	buf := make([]byte, 4096)
	allocs := testing.AllocsPerRun(100, func() {
		for off := int64(0); off < c.Size(); off += 4096 {
			c.ReadAt(buf, off)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass", allocs)
	}
}
