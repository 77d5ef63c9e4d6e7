package unarc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestExtractTwoSubsets: one Archive extracts two different subsets,
// each call with its own filter and progress, and a third call over
// the first under another overwrite policy; nothing is reopened.
// (Before ExtractOption, the filter was an Open option: two subsets
// needed two Archives.)
func TestExtractTwoSubsets(t *testing.T) {
	for _, name := range []string{"testdata/tar/small.tar.gz", "testdata/parallel/p20-rar5-solid.rar", "testdata/parallel/p20-folders.7z"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			a, err := OpenFile(name)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var files []string
			for _, e := range a.Entries() {
				if e.Mode.IsRegular() && e.Link == LinkNone {
					files = append(files, e.Name)
				}
			}
			if len(files) < 2 {
				t.Fatalf("%d regular files", len(files))
			}
			half := len(files) / 2
			first, second := files[:half], files[half:]
			extract := func(dest string, want []string, opts ...ExtractOption) {
				t.Helper()
				var done []string
				opts = append(opts, WithFilter(func(e *Entry) bool { return slices.Contains(want, e.Name) }),
					WithProgress(func(p Progress) {
						if p.Done {
							done = append(done, p.Entry.Name)
						}
					}))
				if err := a.Extract(t.Context(), dest, opts...); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(done, want) {
					t.Errorf("progress reported %v, want %v", done, want)
				}
			}
			d1, d2 := t.TempDir(), t.TempDir()
			extract(d1, first)
			extract(d2, second)
			for _, c := range []struct {
				dir       string
				have, not []string
			}{{d1, first, second}, {d2, second, first}} {
				for _, f := range c.have {
					if _, err := os.Stat(filepath.Join(c.dir, f)); err != nil {
						t.Errorf("%s: %v", f, err)
					}
				}
				for _, f := range c.not {
					if _, err := os.Lstat(filepath.Join(c.dir, f)); err == nil {
						t.Errorf("%s: extracted by the other call's filter", f)
					}
				}
			}
			// The same subset again into d1: the default policy refuses,
			// the next call's OverwriteSkip keeps what is there.
			if err := a.Extract(t.Context(), d1, WithFilter(func(e *Entry) bool { return e.Name == first[0] })); err == nil {
				t.Error("a second extraction over d1 under OverwriteError succeeded")
			}
			keepFirst := WithFilter(func(e *Entry) bool { return slices.Contains(first, e.Name) })
			if err := a.Extract(t.Context(), d1, keepFirst, WithOverwrite(OverwriteSkip)); err != nil {
				t.Errorf("the first subset again under OverwriteSkip: %v", err)
			}
		})
	}
}

// randomTarGz makes a gzip tarball of n MiB of barely compressible data,
// so that Open's decode of it takes a while.
func randomTarGz(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	rng := rand.New(rand.NewPCG(1, 2))
	chunk := make([]byte, 1<<20)
	for i := range n {
		for j := 0; j < len(chunk); j += 8 {
			v := rng.Uint64()
			for k := range 8 {
				chunk[j+k] = byte(v >> (8 * k))
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%03d.bin", i), Mode: 0o644, Size: int64(len(chunk)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(chunk)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// cancelAfter is an io.ReaderAt that cancels a context once it has
// served after bytes, and counts what it serves past that.
type cancelAfter struct {
	r      io.ReaderAt
	after  int64
	cancel context.CancelFunc
	read   atomic.Int64
	late   atomic.Int64
}

func (c *cancelAfter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	if c.read.Add(int64(n)) > c.after {
		c.cancel()
		c.late.Add(int64(n))
	}
	return n, err
}

// TestOpenContext: WithContext stops the opening decode of a compressed
// tarball at its next read: Open fails with context.Canceled itself (not
// wrapped as damage), having read little past the cancellation; a
// context already done fails every open at once; once Open returned, the
// Archive does not depend on the context.
func TestOpenContext(t *testing.T) {
	data := randomTarGz(t, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &cancelAfter{r: bytes.NewReader(data), after: 1 << 20, cancel: cancel}
	start := time.Now()
	a, err := Open(src, int64(len(data)), WithContext(ctx))
	if err != context.Canceled {
		if a != nil {
			a.Close()
		}
		t.Fatalf("Open: %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("Open took %v to stop", el)
	}
	// One read past the cancellation is served (the one that cancels);
	// the gate refuses the rest.
	if late := src.late.Load(); late > 1<<20 {
		t.Errorf("%d bytes read after the cancellation", late)
	}
	if src.read.Load() >= int64(len(data)) {
		t.Error("the whole stream was read")
	}

	// Already cancelled: Open, OpenFile, OpenFS and NewReader stop at once.
	name := filepath.Join(t.TempDir(), "big.tar.gz")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(name, WithContext(ctx)); err != context.Canceled {
		t.Errorf("OpenFile: %v, want context.Canceled", err)
	}
	if _, err := OpenFS(os.DirFS(filepath.Dir(name)), "big.tar.gz", WithContext(ctx)); err != context.Canceled {
		t.Errorf("OpenFS: %v, want context.Canceled", err)
	}
	if _, err := NewReader(bytes.NewReader(data), WithContext(ctx)); err != context.Canceled {
		t.Errorf("NewReader: %v, want context.Canceled", err)
	}

	// A deadline met during the decode is DeadlineExceeded.
	dctx, dcancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer dcancel()
	slow := &slowReaderAt{r: bytes.NewReader(data), d: 2 * time.Millisecond}
	if _, err := Open(slow, int64(len(data)), WithContext(dctx)); err != context.DeadlineExceeded {
		t.Errorf("Open past its deadline: %v, want context.DeadlineExceeded", err)
	}

	// A context cancelled after Open returned changes nothing.
	small, err := os.ReadFile("testdata/tar/small.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	a, err = Open(bytes.NewReader(small), int64(len(small)), WithContext(ctx2))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cancel2()
	b, err := a.ReadFile("hello.txt")
	if err != nil || !strings.HasPrefix(string(b), "hello") {
		t.Errorf("read after the open's context ended: %q, %v", b, err)
	}
	if err := a.Extract(t.Context(), t.TempDir()); err != nil && !errors.Is(err, ErrUnsupported) {
		var xe *ExtractError
		if !errors.As(err, &xe) {
			t.Errorf("Extract after the open's context ended: %v", err)
		}
	}
}

// slowReaderAt sleeps before each read.
type slowReaderAt struct {
	r io.ReaderAt
	d time.Duration
}

func (s *slowReaderAt) ReadAt(p []byte, off int64) (int, error) {
	time.Sleep(s.d)
	return s.r.ReadAt(p, off)
}
