package sevenzip

import (
	"bytes"
	"errors"
	"io/fs"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/testutil"
)

// entryNames reads back the names of the archive in b.
func entryNames(t testutil.TB, b []byte) []string {
	t.Helper()
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var names []string
	for _, e := range a.Entries() {
		names = append(names, e.Name)
	}
	return names
}

// TestWriterInvalidNames: every kind of name that would extract outside
// the destination, or mean another entry, is refused with ErrInvalidName,
// and the archive goes on without it.
func TestWriterInvalidNames(t *testing.T) {
	for _, c := range []struct{ name, bad string }{
		{"absolute", "/etc/passwd"},
		{"absolute-dir", "/abs/"},
		{"root", "/"},
		{"dotdot", "../x"},
		{"dotdot-inner", "a/../../x"},
		{"dotdot-last", "a/.."},
		{"dotdot-only", ".."},
		{"drive", "C:/x"},
		{"drive-relative", "c:x"},
		{"empty-elem", "a//b"},
		{"dot", "."},
		{"dot-dir", "./"},
		{"dot-inner", "a/./b"},
		{"dot-last", "a/."},
		{"empty", ""},
		{"nul", "a\x00b"},
		{"dup", "ok.txt"},
		{"dup-dot", "./ok.txt"},
		{"dup-as-dir", "ok.txt/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m memFile
			zw, err := NewWriter(&m)
			if err != nil {
				t.Fatal(err)
			}
			ew, err := zw.Create("ok.txt")
			if err != nil {
				t.Fatal(err)
			}
			ew.Write([]byte("kept"))
			if _, err := zw.Create(c.bad); !errors.Is(err, ErrInvalidName) {
				t.Errorf("Create(%q): %v, want ErrInvalidName", c.bad, err)
			}
			if _, err := zw.CreateHeader(&FileHeader{Name: c.bad, Mode: 0o755 | fs.ModeDir}); !errors.Is(err, ErrInvalidName) {
				t.Errorf("CreateHeader(%q, dir): %v, want ErrInvalidName", c.bad, err)
			}
			// The refusal costs the archive nothing.
			if _, err := zw.Create("after"); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			if got := entryNames(t, m.b); len(got) != 2 || got[0] != "ok.txt" || got[1] != "after" {
				t.Errorf("entries %q", got)
			}
		})
	}
}

// TestWriterCleanNames: with WithCleanNames the names refused above are
// stored cleaned; what cleaning leaves empty or duplicate is still
// refused.
func TestWriterCleanNames(t *testing.T) {
	var m memFile
	zw, err := NewWriter(&m, WithCleanNames())
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range []struct{ raw, stored string }{
		{"/etc/passwd", "etc/passwd"},
		{"../x", "x"},
		{"a/../../y", "y"},
		{"C:/win/z", "win/z"},
		{"d:w", "w"},
		{"a//b", "a/b"},
		{"a/./c", "a/c"},
		{"//dir/", "dir"},
		{"plain", "plain"},
	} {
		if _, err := zw.Create(c.raw); err != nil {
			t.Errorf("%q: %v", c.raw, err)
			continue
		}
		want = append(want, c.stored)
	}
	for _, bad := range []string{".", "..", "/", "a/..", "../../x", "/plain"} {
		if _, err := zw.Create(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q: %v, want ErrInvalidName", bad, err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got := entryNames(t, m.b)
	if len(got) != len(want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestWriterNonUTF8Name: a name that is not UTF-8 is stored as 7-Zip on
// Unix stores it (byte b as U+EF00+b), so 7zz extracts the raw bytes.
func TestWriterNonUTF8Name(t *testing.T) {
	var m memFile
	zw, _ := NewWriter(&m)
	ew, err := zw.Create("bad\xff\xfe-\xc3\xa9-\xc3.txt")
	if err != nil {
		t.Fatal(err)
	}
	ew.Write([]byte("data\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if got := entryNames(t, m.b); len(got) != 1 || got[0] != "bad\uefff\ueffe-é-\uefc3.txt" {
		t.Errorf("stored %q", got)
	}
	need7zz(t)
	path := writeTemp(t, m.b)
	out, err := exec.Command("7zz", "l", "-slt", path).CombinedOutput()
	if err != nil {
		t.Fatalf("7zz l: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("Path = bad\xff\xfe-\xc3\xa9-\xc3.txt\n")) {
		t.Errorf("7zz does not list the raw name:\n%q", out)
	}
}

// FuzzWriterNames: whatever the name, CreateHeader either refuses it
// with ErrInvalidName or stores a name that is valid UTF-8, relative,
// without a drive letter and without empty, "." or ".." elements; with
// WithCleanNames, a name is refused only when nothing is left of it.
func FuzzWriterNames(f *testing.F) {
	for _, s := range []string{"a", "../x", "/abs", "C:/x", "a//b", ".", "./a", "a/", "bad\xff", "a/../../b", "c:", "\x00"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, name string, clean bool) {
		var m memFile
		var opts []WriterOption
		if clean {
			opts = append(opts, WithCleanNames())
		}
		zw, err := NewWriter(&m, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer zw.Abort()
		_, err = zw.Create(name)
		if err != nil {
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("%q: %v", name, err)
			}
			rest := strings.TrimRight(name, "/")
			for strings.HasPrefix(rest, "./") {
				rest = rest[2:]
			}
			if clean && strings.IndexByte(name, 0) < 0 && archwrite.CleanName(rest) != "" {
				t.Fatalf("%q refused although cleaning leaves %q: %v", name, archwrite.CleanName(rest), err)
			}
			return
		}
		got := zw.st.files[0].name
		if !fs.ValidPath(got) || got == "." || archwrite.HasDrive(got) || strings.IndexByte(got, 0) >= 0 {
			t.Fatalf("%q stored as %q", name, got)
		}
	})
}
