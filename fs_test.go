package unarc_test

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/go-unarc/unarc"
)

var _ interface {
	fs.StatFS
	fs.ReadDirFS
	fs.ReadFileFS
	fs.ReadLinkFS
	fs.SubFS
} = (*unarc.Archive)(nil)

// TestFSRealArchives runs fstest.TestFS (which also checks Seek, ReadAt,
// ReadFile, Stat and Lstat against Open) on the same tree written by zip,
// 7zz and rar, with symlinks to a file and to a directory (and, in the
// ZIP, a CP437 name without the UTF-8 flag).
func TestFSRealArchives(t *testing.T) {
	for _, name := range []string{"fs/tree.zip", "fs/tree.7z", "fs/tree.rar"} {
		t.Run(name, func(t *testing.T) {
			a := openTestdata(t, name)
			want := []string{"hello", "link", "dirlink", "dir/a.txt", "dir/sub/n.txt", "dir/up", "dir/ünï-名前.txt", "big.txt"}
			if strings.HasSuffix(name, ".zip") {
				want = append(want, "café-¢.txt") // CP437, no UTF-8 flag
			}
			if err := fstest.TestFS(a, want...); err != nil {
				t.Fatal(err)
			}
			if got, err := a.ReadLink("link"); err != nil || got != "hello" {
				t.Errorf("ReadLink(link) = %q, %v", got, err)
			}
			if fi, err := a.Lstat("dirlink"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("Lstat(dirlink) = %v, %v; want a symlink", fi, err)
			}
			if fi, err := a.Stat("dirlink"); err != nil || !fi.IsDir() {
				t.Errorf("Stat(dirlink) = %v, %v; want the directory it names", fi, err)
			}
			if b, err := fs.ReadFile(a, "dir/up"); err != nil || string(b) != "hello, world\n" {
				t.Errorf("ReadFile(dir/up) = %q, %v", b, err)
			}
			if b, err := fs.ReadFile(a, "dirlink/sub/n.txt"); err != nil || string(b) != "nested\n" {
				t.Errorf("ReadFile through a directory link = %q, %v", b, err)
			}
			if _, err := a.ReadLink("hello"); err == nil {
				t.Error("ReadLink of a regular file succeeded")
			}
			sub, err := fs.Sub(a, "dirlink")
			if err != nil {
				t.Fatal(err)
			}
			if err := fstest.TestFS(sub, "a.txt", "sub/n.txt", "up", "ünï-名前.txt"); err != nil {
				t.Fatal("fs.Sub(dirlink):", err)
			}
		})
	}
}

// TestFSLinksOutside: links that leave the archive or loop do not resolve.
func TestFSLinksOutside(t *testing.T) {
	a := openTestdata(t, "rar/rar5_links.rar") // abs_link -> ../outside
	if _, err := a.Stat("abs_link"); !errorsIsNotExist(err) {
		t.Errorf("Stat(abs_link) = %v, want fs.ErrNotExist", err)
	}
	if fi, err := a.Lstat("abs_link"); err != nil || fi.Mode().Type() != fs.ModeSymlink {
		t.Errorf("Lstat(abs_link) = %v, %v", fi, err)
	}
	if got, _ := a.ReadLink("abs_link"); got != "../outside" {
		t.Errorf("ReadLink(abs_link) = %q", got)
	}
	if b, err := fs.ReadFile(a, "link.txt"); err != nil || string(b) != "target content\n" {
		t.Errorf("ReadFile(link.txt) = %q, %v", b, err)
	}
}

func errorsIsNotExist(err error) bool { return err != nil && os.IsNotExist(err) }

// TestFSSeek: Seek forward, backward and from the end on a solid entry
// give the bytes at that offset.
func TestFSSeek(t *testing.T) {
	for _, name := range []string{"fs/solid.7z", "fs/solid.rar", "fs/tree.zip"} {
		t.Run(name, func(t *testing.T) {
			a := openTestdata(t, name)
			file := "a-big.txt"
			if strings.HasSuffix(name, "zip") {
				file = "big.txt"
			}
			want, err := fs.ReadFile(a, file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := a.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s := f.(io.ReadSeeker)
			for _, off := range []int64{5000, 100, 0, int64(len(want)) - 10, 7777, 7777} {
				if _, err := s.Seek(off, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 10)
				if _, err := io.ReadFull(s, buf); err != nil {
					t.Fatalf("read at %d: %v", off, err)
				}
				if !bytes.Equal(buf, want[off:off+10]) {
					t.Fatalf("at %d: %q, want %q", off, buf, want[off:off+10])
				}
			}
			if n, err := s.Seek(-3, io.SeekEnd); err != nil || n != int64(len(want))-3 {
				t.Fatalf("SeekEnd = %d, %v", n, err)
			}
			rest, err := io.ReadAll(s)
			if err != nil || !bytes.Equal(rest, want[len(want)-3:]) {
				t.Fatalf("tail = %q, %v", rest, err)
			}
			ra := f.(io.ReaderAt)
			buf := make([]byte, 20)
			if _, err := ra.ReadAt(buf, 1234); err != nil || !bytes.Equal(buf, want[1234:1254]) {
				t.Fatalf("ReadAt = %q, %v", buf, err)
			}
			if n, err := ra.ReadAt(buf, int64(len(want))-5); n != 5 || err != io.EOF {
				t.Fatalf("ReadAt over the end = %d, %v; want 5, EOF", n, err)
			}
		})
	}
}

// TestFSLegacyNames: a ZIP name stored in CP437 without the UTF-8 flag
// (Info-ZIP on a non-UTF-8 system) is decoded and visible in the fs.FS
// view; it used to come back as raw bytes and vanish (not a valid path).
func TestFSLegacyNames(t *testing.T) {
	a := openTestdata(t, "fs/cp437.zip")
	if got := a.Entries()[0].Name; got != "café-¢.txt" {
		t.Errorf("name %q, want %q", got, "café-¢.txt")
	}
	if err := fstest.TestFS(a, "café-¢.txt"); err != nil {
		t.Fatal(err)
	}
	// A caller's decoder gets the raw bytes.
	var raw []byte
	a = openTestdata(t, "fs/cp437.zip", unarc.WithNameDecoder(func(b []byte) string {
		raw = append([]byte(nil), b...)
		return "decoded.txt"
	}))
	if string(raw) != "caf\x82-\x9b.txt" {
		t.Errorf("decoder got %q", raw)
	}
	if b, err := fs.ReadFile(a, "decoded.txt"); err != nil || string(b) != "legacy\n" {
		t.Errorf("ReadFile(decoded.txt) = %q, %v", b, err)
	}
}

// TestFSConcurrent: ReadAt on one file from several goroutines, while
// others Stat, ReadDir and Open, gives the right bytes (run with -race).
func TestFSConcurrent(t *testing.T) {
	a := openTestdata(t, "fs/tree.zip")
	want, err := a.ReadFile("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	f, err := a.Open("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ra := f.(io.ReaderAt)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 100)
			for i := range 20 {
				off := int64((g*7919 + i*104729) % (len(want) - 100))
				if _, err := ra.ReadAt(buf, off); err != nil || !bytes.Equal(buf, want[off:off+100]) {
					t.Errorf("ReadAt(%d) = %q, %v", off, buf, err)
					return
				}
				if _, err := a.Stat("dir/sub/n.txt"); err != nil {
					t.Error(err)
				}
				if _, err := a.ReadDir("dir"); err != nil {
					t.Error(err)
				}
				if b, err := fs.ReadFile(a, "link"); err != nil || string(b) != "hello, world\n" {
					t.Errorf("ReadFile(link) = %q, %v", b, err)
				}
			}
		}()
	}
	wg.Wait()
}
