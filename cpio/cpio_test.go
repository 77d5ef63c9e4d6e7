package cpio

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/fwd"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "cpio", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// listing is what an archive lists, with each entry's content, one
// line per entry.
func listing(t *testing.T, ents []*arc.Entry, open func(i int) (io.Reader, error)) string {
	t.Helper()
	var b strings.Builder
	for i, e := range ents {
		r, err := open(i)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		h := e.Sys.(*tar.Header)
		fmt.Fprintf(&b, "%s %v %d %s %d:%d %d,%d %q %q %d\n", e.Name, e.Mode, e.Size, e.Link, h.Uid, h.Gid,
			h.Devmajor, h.Devminor, e.LinkTarget, data, e.Modified.Unix())
	}
	return b.String()
}

func listArchive(t *testing.T, data []byte) string {
	a, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if w := a.Warnings(); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
	return listing(t, a.Entries(), func(i int) (io.Reader, error) { return a.Open(i) })
}

func listReader(t *testing.T, data []byte) string {
	z, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var ents []*arc.Entry
	var bodies [][]byte
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(z)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		ents, bodies = append(ents, e), append(bodies, b)
	}
	return listing(t, ents, func(i int) (io.Reader, error) { return bytes.NewReader(bodies[i]), nil })
}

// TestFormats: each header format GNU cpio writes lists the same tree,
// by Open and by NewReader alike.
func TestFormats(t *testing.T) {
	var bin string
	for _, name := range []string{"bin.cpio", "bin-be.cpio", "odc.cpio", "newc.cpio", "crc.cpio"} {
		t.Run(name, func(t *testing.T) {
			data := sample(t, name)
			if !sniffHead(data) || !sniff(bytes.NewReader(data), int64(len(data))) {
				t.Fatal("not sniffed")
			}
			got := listArchive(t, data)
			if r := listReader(t, data); r != got {
				t.Errorf("Reader lists\n%s\nOpen lists\n%s", r, got)
			}
			for _, want := range []string{
				"dir/text.txt -rw-r--r-- 3000 none 1000:1000",
				"dir/sub drwxr-x--- 0 none",
				"hello.txt urwxr-xr-x 6 none 1000:1000 0,0 \"\" \"hello\\n\" 1704164645",
				"link Lrwxrwxrwx 12 symlink 1000:1000 0,0 \"dir/text.txt\" \"dir/text.txt\"",
				"fifo prw-r--r-- 0 none",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("no line %q in\n%s", want, got)
				}
			}
			if os.Getuid() == 0 && !strings.Contains(got, "null Dcrw-r--r-- 0 none 1000:1000 1,3") {
				t.Errorf("no character device 1,3 in\n%s", got)
			}
			switch name {
			case "bin.cpio":
				bin = got
			case "bin-be.cpio":
				if got != bin {
					t.Errorf("big-endian lists\n%s\nlittle-endian\n%s", got, bin)
				}
			case "newc.cpio", "crc.cpio":
				// The data is on the last link (hard2): the others follow it as links to it.
				for _, want := range []string{"hard2 -rw-r--r-- 400 none", "hard1 -rw-r--r-- 0 hardlink 1000:1000 0,0 \"hard2\"",
					"dir/hard3 -rw-r--r-- 0 hardlink 1000:1000 0,0 \"hard2\""} {
					if !strings.Contains(got, want) {
						t.Errorf("no line %q in\n%s", want, got)
					}
				}
				if strings.Index(got, "\nhard2 ") > strings.Index(got, "\nhard1 ") {
					t.Errorf("a link is listed before the entry with its data:\n%s", got)
				}
			}
		})
	}
}

// TestConcatenated: two archives one after the other (each padded with
// zeros to 512 bytes by cpio, as in an initramfs) list as one.
func TestConcatenated(t *testing.T) {
	data := sample(t, "concat.cpio")
	got := listArchive(t, data)
	want := listArchive(t, sample(t, "newc.cpio")) + listArchive(t, sample(t, "odc.cpio"))
	if got != want {
		t.Errorf("lists\n%s\nwant\n%s", got, want)
	}
	if r := listReader(t, data); r != got {
		t.Errorf("Reader lists\n%s\nOpen lists\n%s", r, got)
	}
	// Data after the last trailer that is no archive is a notice.
	junk := append(sample(t, "newc.cpio"), "garbage"...)
	a, err := Open(bytes.NewReader(junk), int64(len(junk)))
	if err != nil {
		t.Fatal(err)
	}
	if w := a.Warnings(); len(w) != 1 || !errors.Is(w[0], errs.ErrNotice) {
		t.Errorf("warnings %v, want one notice", w)
	}
}

// TestChecksum: a crc archive whose data does not add up to its sum
// fails that entry with ErrChecksum, by Open and by NewReader; newc
// with the same change reads.
func TestChecksum(t *testing.T) {
	data := sample(t, "crc.cpio")
	i := bytes.Index(data, []byte("hello\n"))
	bad := bytes.Clone(data)
	bad[i] = 'j'
	a, err := Open(bytes.NewReader(bad), int64(len(bad)))
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for j, e := range a.Entries() {
		rc, _ := a.Open(j)
		if _, err := io.ReadAll(rc); err != nil {
			if !errors.Is(err, errs.ErrChecksum) {
				t.Errorf("%s: %v, want ErrChecksum", e.Name, err)
			}
			failed = append(failed, e.Name)
		}
	}
	if len(failed) != 1 || failed[0] != "hello.txt" {
		t.Errorf("failed %v, want hello.txt", failed)
	}
	z, _ := NewReader(bytes.NewReader(bad))
	for {
		e, err := z.Next()
		if err != nil {
			break
		}
		if _, err := io.ReadAll(z); (err != nil) != (e.Name == "hello.txt") || err != nil && !errors.Is(err, errs.ErrChecksum) {
			t.Errorf("Reader: %s: %v", e.Name, err)
		}
	}
}

// TestHostile: what a crafted archive may say is refused with a typed
// error, never a panic or an allocation of its size.
func TestHostile(t *testing.T) {
	newc := func(name string, size int64, nameSize int64, mode uint32) []byte {
		h := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			1, mode, 0, 0, 1, 0, size, 0, 0, 0, 0, nameSize, 0)
		b := append([]byte(h), name...)
		b = append(b, 0)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	small := arc.WithLimits(arc.Limits{MaxHeaderMemory: 4096, MaxEntries: 3})
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"size past the end", newc("f", 1<<30, 2, fwd.TypeReg|0o644), errs.ErrTruncated},
		{"huge name", newc("f", 0, 1<<31, fwd.TypeReg|0o644), errs.ErrLimit},
		{"name past the end", newc("f", 0, 3000, fwd.TypeReg|0o644), errs.ErrTruncated},
		{"symlink target over the header memory", newc("l", 1<<20, 2, fwd.TypeLink|0o777), errs.ErrLimit},
		{"many entries", bytes.Repeat(newc("f", 0, 2, fwd.TypeReg|0o644), 10), errs.ErrLimit},
		{"bad digit", append([]byte("070701zz"), make([]byte, 200)...), errs.ErrCorrupt},
		{"empty name", newc("", 0, 0, fwd.TypeReg), errs.ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(bytes.NewReader(c.data), int64(len(c.data)), small)
			if !errors.Is(err, c.want) {
				t.Errorf("Open: %v, want %v", err, c.want)
			}
			z, err := NewReader(bytes.NewReader(c.data), small)
			for err == nil {
				if _, err = z.Next(); err == nil {
					_, err = io.Copy(io.Discard, z)
				}
			}
			if !errors.Is(err, c.want) {
				t.Errorf("Reader: %v, want %v", err, c.want)
			}
		})
	}
	// A hard-link group whose names are one name (a link to itself)
	// lists that name once, with the data; no entry links to itself.
	loop := append(newcLink("a", 0), newcLink("a", 3)...)
	loop = append(loop, "xyz\x00"...)
	loop = append(loop, newc("TRAILER!!!", 0, 11, 0)...)
	a, err := Open(bytes.NewReader(loop), int64(len(loop)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range a.Entries() {
		if e.Link == arc.LinkHardlink && e.LinkTarget == e.Name {
			t.Errorf("%s links to itself", e.Name)
		}
	}
	if n := len(a.Entries()); n != 1 {
		t.Errorf("%d entries, want 1", n)
	}
}

// TestManyPendingLinks: links waiting for data that never comes are
// listed at the trailer in stored order, sorted in n log n (an
// insertion sort made 20,000 of them a quadratic stall).
func TestManyPendingLinks(t *testing.T) {
	var b []byte
	for i := range 20000 {
		h := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			i+1, fwd.TypeReg|0o644, 0, 0, 2, 0, 0, 0, 0, 0, 0, 6, 0)
		b = append(b, h...)
		b = append(b, fmt.Sprintf("%05d\x00", i)...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	a, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	ents := a.Entries()
	if len(ents) != 20000 || ents[0].Name != "00000" || ents[19999].Name != "19999" {
		t.Errorf("%d entries", len(ents))
	}
}

// newcLink is a newc header of a file with two links (inode 7) and
// size bytes of data to follow.
func newcLink(name string, size int64) []byte {
	h := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		7, fwd.TypeReg|0o644, 0, 0, 2, 0, size, 0, 0, 0, 0, len(name)+1, 0)
	b := append([]byte(h), name...)
	b = append(b, 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// TestModes: permission and type bits map to fs.FileMode.
func TestModes(t *testing.T) {
	for _, c := range []struct {
		mode uint32
		want fs.FileMode
	}{
		{fwd.TypeReg | 0o4755, fs.ModeSetuid | 0o755},
		{fwd.TypeDir | 0o1777, fs.ModeDir | fs.ModeSticky | 0o777},
		{fwd.TypeBlock | 0o660, fs.ModeDevice | 0o660},
		{fwd.TypeSocket | 0o600, fs.ModeSocket | 0o600},
	} {
		if got := entryOf(&header{mode: c.mode, name: "x"}).Mode; got != c.want {
			t.Errorf("mode %o: %v, want %v", c.mode, got, c.want)
		}
	}
}
