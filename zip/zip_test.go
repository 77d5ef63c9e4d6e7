package zip

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// The inputs testdata/zip/make.sh archives, rebuilt here.
var (
	helloData  = "hello, world\n"
	textData   = makeText()
	randData   = makeRand()
	nestedData = "nested\n"
	uniData    = "unicode name\n"
	fixedTime  = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
)

func makeText() string {
	var b strings.Builder
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

func makeRand() string {
	var b []byte
	for i := 0; i < 128; i++ {
		s := sha256.Sum256([]byte(fmt.Sprintf("rand%d", i)))
		b = append(b, s[:]...)
	}
	return string(b)
}

// want is one expected entry: kind 'f' file (data is the content), 'd'
// directory, 'l' symlink (data is the target).
type want struct {
	name string
	kind byte
	data string
}

func files(names ...string) []want {
	content := map[string]string{
		"hello.txt": helloData, "empty.txt": "", "text.txt": textData, "rand.bin": randData,
		"dir/sub/nested.txt": nestedData, "dir/ünïcödé.txt": uniData, "-": textData,
	}
	var w []want
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, "/"):
			w = append(w, want{n, 'd', ""})
		case n == "link":
			w = append(w, want{n, 'l', "hello.txt"})
		case n == "dir/sub/uplink":
			w = append(w, want{n, 'l', "../../text.txt"})
		default:
			c, ok := content[n]
			if !ok {
				panic(n)
			}
			w = append(w, want{n, 'f', c})
		}
	}
	return w
}

var dirTree = []string{"dir/", "dir/sub/", "dir/sub/nested.txt", "dir/ünïcödé.txt", "dir/sub/uplink"}

var testArchives = []struct {
	file     string
	entries  []want
	comment  string
	comments map[string]string // entry comments
	methods  map[string]string
	exact    bool // Modified must equal fixedTime (UT/NTFS time); else within DOS 2 s
	noTime   bool // stdin entries carry the time of the run
}{
	{file: "infozip-deflate.zip", comment: "archive comment", exact: true,
		entries: files(append([]string{"hello.txt", "empty.txt", "text.txt", "rand.bin", "emptydir/", "link"}, dirTree...)...),
		methods: map[string]string{"text.txt": "Deflate", "hello.txt": "Store"}},
	{file: "infozip-store.zip", exact: true, entries: files(append([]string{"hello.txt", "text.txt", "link"}, dirTree...)...),
		methods: map[string]string{"text.txt": "Store"}},
	{file: "infozip-comments.zip", exact: true, entries: files("hello.txt", "text.txt"),
		comments: map[string]string{"hello.txt": "comment for hello", "text.txt": "comment for text"}},
	{file: "infozip-zip64.zip", exact: true, entries: files("hello.txt", "text.txt", "rand.bin")},
	{file: "infozip-stdin-deflate.zip", noTime: true, entries: []want{{"-", 'f', textData}}},
	{file: "infozip-stdin-store.zip", noTime: true, entries: []want{{"-", 'f', randData}}},
	{file: "infozip-stdin-zip64.zip", noTime: true, entries: []want{{"-", 'f', textData}}},
	{file: "7zz-deflate64.zip", exact: true, entries: files("hello.txt", "text.txt", "rand.bin"),
		methods: map[string]string{"text.txt": "Deflate64"}},
	{file: "7zz-copy.zip", exact: true, entries: files(append([]string{"hello.txt", "text.txt", "link"}, dirTree...)...)},
	{file: "7zz-utf8-ntfs.zip", exact: true, entries: files(append([]string{"hello.txt"}, dirTree...)...)},
	{file: "bsdtar-deflate.zip", exact: true, entries: files(append([]string{"hello.txt", "empty.txt", "text.txt", "rand.bin", "link"}, dirTree...)...)},
	{file: "bsdtar-store.zip", exact: true, entries: files("hello.txt", "empty.txt", "text.txt", "rand.bin", "link")},
	{file: "sfx-adjusted.zip", entries: files("hello.txt", "text.txt")},
	{file: "sfx-unadjusted.zip", entries: files("hello.txt", "text.txt")},
}

func readTestdata(t testutil.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "zip", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestArchives(t *testing.T) {
	for _, tc := range testArchives {
		t.Run(tc.file, func(t *testing.T) {
			data := readTestdata(t, tc.file)
			a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Comment() != tc.comment {
				t.Errorf("comment %q, want %q", a.Comment(), tc.comment)
			}
			got := map[string]*arc.Entry{}
			var names []string
			for i, e := range a.Entries() {
				if e.Index != i {
					t.Errorf("%s: Index %d, want %d", e.Name, e.Index, i)
				}
				got[e.Name] = e
				names = append(names, e.Name)
			}
			if len(got) != len(tc.entries) {
				sort.Strings(names)
				t.Errorf("entries %q, want %d", names, len(tc.entries))
			}
			for _, w := range tc.entries {
				e := got[w.name]
				if e == nil {
					t.Errorf("missing %q", w.name)
					continue
				}
				checkEntry(t, a, e, w)
				if !tc.noTime {
					d := e.Modified.Sub(fixedTime)
					if tc.exact && d != 0 || d < -time.Second || d > time.Second {
						t.Errorf("%s: Modified %v, want %v", e.Name, e.Modified, fixedTime)
					}
				}
				if c := tc.comments[w.name]; e.Comment != c {
					t.Errorf("%s: comment %q, want %q", e.Name, e.Comment, c)
				}
				if m := tc.methods[w.name]; m != "" && e.Method != m {
					t.Errorf("%s: method %q, want %q", e.Name, e.Method, m)
				}
			}
		})
	}
}

func checkEntry(t *testing.T, a *Archive, e *arc.Entry, w want) {
	t.Helper()
	switch w.kind {
	case 'd':
		if !e.IsDir() {
			t.Errorf("%s: mode %v, want a directory", e.Name, e.Mode)
		}
		return
	case 'l':
		if e.Link != arc.LinkSymlink || e.Mode.Type() != os.ModeSymlink || e.LinkTarget != w.data {
			t.Errorf("%s: link %v %v %q, want symlink to %q", e.Name, e.Link, e.Mode, e.LinkTarget, w.data)
		}
		return
	}
	if !e.Mode.IsRegular() {
		t.Errorf("%s: mode %v, want a regular file", e.Name, e.Mode)
	}
	if e.Size != int64(len(w.data)) {
		t.Errorf("%s: Size %d, want %d", e.Name, e.Size, len(w.data))
	}
	rc, err := a.Open(e.Index)
	if err != nil {
		t.Errorf("%s: %v", e.Name, err)
		return
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil || string(b) != w.data {
		t.Errorf("%s: read %d bytes, err %v; content matches: %v", e.Name, len(b), err, string(b) == w.data)
	}
}

// TestReaderAgrees reads every testdata archive forward-only, through
// readers that hide everything but Read and deliver one byte or half a
// buffer at a time, and checks it yields what the Archive does.
func TestReaderAgrees(t *testing.T) {
	wraps := []struct {
		name string
		f    func(io.Reader) io.Reader
	}{
		{"plain", func(r io.Reader) io.Reader { return onlyReader{r} }},
		{"onebyte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"dataerr", iotest.DataErrReader},
	}
	for _, tc := range testArchives {
		data := readTestdata(t, tc.file)
		ga := readArchive(data, nil)
		if ga.openErr != nil || len(ga.errs) > 0 {
			t.Fatalf("%s: %v %v", tc.file, ga.openErr, ga.errs)
		}
		// A stream has no modes: symlinks come out as files holding the target.
		for n, tg := range ga.links {
			s := sha256.Sum256([]byte(tg))
			ga.files[n] = s[:]
			ga.sizes[n] = int64(len(tg))
		}
		for _, w := range wraps {
			gs := readStream(data, nil, w.f)
			if gs.openErr != nil || len(gs.errs) > 0 {
				t.Errorf("%s/%s: %v %v", tc.file, w.name, gs.openErr, gs.errs)
				continue
			}
			if fmt.Sprint(gs.files) != fmt.Sprint(ga.files) || fmt.Sprint(gs.dirs) != fmt.Sprint(ga.dirs) {
				t.Errorf("%s/%s: Reader saw %d files %d dirs, Archive %d files %d dirs", tc.file, w.name, len(gs.files), len(gs.dirs), len(ga.files), len(ga.dirs))
			}
		}
		// Through Reader.WriteTo, as io.Copy and Extract use it.
		gs := readStreamCopy(data, nil, func(r io.Reader) io.Reader { return r }, func(w io.Writer, z *Reader) (int64, error) { return z.WriteTo(w) })
		if gs.openErr != nil || len(gs.errs) > 0 || fmt.Sprint(gs.files) != fmt.Sprint(ga.files) {
			t.Errorf("%s/WriteTo: %v %v, %d files", tc.file, gs.openErr, gs.errs, len(gs.files))
		}
	}
}

func TestSniffAndFormat(t *testing.T) {
	for _, tc := range testArchives {
		data := readTestdata(t, tc.file)
		if !Format.Sniff(bytes.NewReader(data), int64(len(data))) {
			t.Errorf("%s: Sniff false", tc.file)
		}
		a, err := Format.Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil || len(a.Entries()) != len(tc.entries) {
			t.Errorf("%s: Format.Open: %v", tc.file, err)
		}
		start := bytes.Index(data, Format.Magic[0])
		r, err := Format.NewReader(bytes.NewReader(data[start:]), nil)
		if err != nil {
			t.Errorf("%s: Format.NewReader: %v", tc.file, err)
		} else {
			r.Close()
		}
	}
	for _, junk := range [][]byte{nil, []byte("PK"), bytes.Repeat([]byte("not a zip "), 100)} {
		if Format.Sniff(bytes.NewReader(junk), int64(len(junk))) {
			t.Errorf("Sniff true on %q", junk[:min(len(junk), 12)])
		}
		if _, err := Open(bytes.NewReader(junk), int64(len(junk)), nil); !errors.Is(err, errs.ErrFormat) {
			t.Errorf("NewArchive on junk: %v", err)
		}
	}
}
