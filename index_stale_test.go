package unarc

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// staleTar is a tarball of n 1 KiB files under d/ with, after file
// `at`, a symlink d/link -> link, a directory d/sub of mode dirMode and
// a hard link d/hard -> hard (a file before them).
func staleTar(t *testing.T, n, at int, link, hard string, dirMode int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	put := func(h *tar.Header, data []byte) {
		h.ModTime, h.Format = mod, tar.FormatUSTAR
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	put(&tar.Header{Typeflag: tar.TypeDir, Name: "d/", Mode: 0o755}, nil)
	for i := 0; i < n; i++ {
		data := testutil.RandomBytes(1024, uint64(i))
		put(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("d/file-%04d.bin", i), Mode: 0o644, Size: int64(len(data))}, data)
		if i == at {
			put(&tar.Header{Typeflag: tar.TypeSymlink, Name: "d/link", Linkname: link, Mode: 0o777}, nil)
			put(&tar.Header{Typeflag: tar.TypeDir, Name: "d/sub/", Mode: dirMode}, nil)
			put(&tar.Header{Typeflag: tar.TypeLink, Name: "d/hard", Linkname: hard, Mode: 0o644}, nil)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestIndexStaleExtract is issue 30's item 7: the index of tarball A
// opens tarball B of the same size and the same first and last 64 KiB
// (stored gzip members: only the middle one differs, in a symlink's
// target, a directory's mode and a hard link's target, each header's
// checksum right). Extract opens none of those three entries, yet each
// must be checked against B before it is made: it fails with
// ErrStaleIndex, and A's link target, mode and link never appear; the
// regular files around them extract. A plain tar's index
// digests its header blocks at open, but past indexfmt.MaxRanges runs
// only a sample of them.
func TestIndexStaleExtract(t *testing.T) {
	// The tar.gz: 300 files, the three entries after file 150, in the
	// middle gzip member. The plain tar: 3,000 files (more header runs
	// than indexfmt.MaxRanges, so most are merged into a range past
	// 2 MiB that the digest covers by its ends), the three after file
	// 2,000, outside those ends.
	for _, kind := range []string{"tar.gz", "tar"} {
		n, at := 300, 150
		if kind == "tar" {
			n, at = 3000, 2000
		}
		a := staleTar(t, n, at, "file-0001.bin", "d/file-0010.bin", 0o700)
		b := staleTar(t, n, at, "file-0002.bin", "d/file-0011.bin", 0o755)
		if kind == "tar.gz" {
			cut1, cut2 := 150<<10, 300<<10
			a, b = gzipMembers(t, a, cut1, cut2), gzipMembers(t, b, cut1, cut2)
		}
		if len(a) != len(b) || !bytes.Equal(a[:edgeLen], b[:edgeLen]) || !bytes.Equal(a[len(a)-edgeLen:], b[len(b)-edgeLen:]) || bytes.Equal(a, b) {
			t.Fatalf("%s: the two archives do not share their ends", kind)
		}
		for _, cp := range []int64{0, 32 << 10} {
			for _, workers := range []int{1, 4} {
				t.Run(fmt.Sprintf("%s/checkpoints=%d/workers=%d", kind, cp, workers), func(t *testing.T) {
					// Extract the three and a few files (a file system
					// of 3,000 files is slow to write on a loaded machine).
					files := []int{0, 10, 11, at, at + 1, n - 1}
					keep := map[string]bool{"d": true, "d/link": true, "d/sub": true, "d/hard": true}
					for _, i := range files {
						keep[fmt.Sprintf("d/file-%04d.bin", i)] = true
					}
					opts := []Option{WithCheckpoints(cp, 64<<20), WithWorkers(workers), WithPreservePermissions(true),
						WithFilter(func(e *Entry) bool { return keep[e.Name] })}
					arcA, err := Open(bytes.NewReader(a), int64(len(a)), opts...)
					if err != nil {
						t.Fatal(err)
					}
					idx := checkpointIndex(t, arcA, arcA.Entries()[n+3])
					arcB, err := OpenWithIndex(bytes.NewReader(b), int64(len(b)), idx, opts...)
					if err != nil {
						t.Fatalf("same ends, stale middle: %v", err)
					}
					defer arcB.Close()
					dir := t.TempDir()
					failed := entryErrs(t, arcB.Extract(context.Background(), dir))
					for _, name := range []string{"d/link", "d/sub", "d/hard"} {
						if !errors.Is(failed[name], ErrStaleIndex) {
							t.Errorf("%s: %v, want ErrStaleIndex", name, failed[name])
						}
					}
					if len(failed) != 3 {
						t.Errorf("%d entries failed: %v", len(failed), failed)
					}
					if target, err := os.Readlink(filepath.Join(dir, "d/link")); err == nil {
						t.Errorf("d/link made, to %q", target)
					}
					if st, err := os.Lstat(filepath.Join(dir, "d/sub")); err == nil {
						t.Errorf("d/sub made, mode %v", st.Mode())
					}
					if _, err := os.Lstat(filepath.Join(dir, "d/hard")); err == nil {
						t.Errorf("d/hard made")
					}
					for _, i := range files {
						got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("d/file-%04d.bin", i)))
						if err != nil || !bytes.Equal(got, testutil.RandomBytes(1024, uint64(i))) {
							t.Errorf("file %d: %v", i, err)
						}
					}
				})
			}
		}
	}
}
