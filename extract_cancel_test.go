package unarc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigTarGz is a tar.gz of two files of 1 MiB: a progress call comes in
// the middle of an entry.
func bigTarGz(t *testing.T) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"a.bin", "b.bin"} {
		data := bytes.Repeat([]byte(name+" some data "), 100<<10)
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "big.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExtractCancelIsContextError cancels an extraction in the middle of
// an entry (or, when no entry takes more than one write, after a few)
// in every format, on 1 and 8 workers and through a Reader: the error is
// context.Canceled itself, not an ExtractError with an "(archive)" entry,
// and no temporary file is left.
func TestExtractCancelIsContextError(t *testing.T) {
	archives := []string{
		bigTarGz(t),
		"testdata/tar/small.tar.gz",
		"testdata/tar/small.tar.xz",
		"testdata/tar/gnu.tar",
		"testdata/parallel/p20-7zz.zip",
		"testdata/parallel/p20-rar5.rar",
		"testdata/parallel/p20-rar5-solid.rar",
		"testdata/parallel/p20-folders.7z",
		"testdata/parallel/p20-solid4.7z",
	}
	for _, name := range archives {
		for _, how := range []string{"workers 1", "workers 8", "reader"} {
			ctx, cancel := context.WithCancel(context.Background())
			calls := 0
			opts := []ExtractOption{WithProgress(func(p Progress) {
				if calls++; !p.Done || calls == 3 {
					cancel()
				}
			})}
			dest := t.TempDir()
			var err error
			if how == "reader" {
				if strings.HasSuffix(name, ".7z") {
					cancel()
					continue
				}
				f, ferr := os.Open(name)
				if ferr != nil {
					t.Fatal(ferr)
				}
				r, rerr := NewReader(f)
				if rerr != nil {
					t.Fatal(rerr)
				}
				err = r.Extract(ctx, dest, opts...)
				r.Close()
				f.Close()
			} else {
				workers := 1
				if how == "workers 8" {
					workers = 8
				}
				a, aerr := OpenFile(name, WithWorkers(workers))
				if aerr != nil {
					t.Fatal(aerr)
				}
				err = a.Extract(ctx, dest, opts...)
				a.Close()
			}
			cancel()
			if err != context.Canceled {
				t.Errorf("%s, %s: cancelled after %d progress calls: %T %v, want context.Canceled", filepath.Base(name), how, calls, err, err)
			}
			noTemps(t, dest)
		}
	}
	// Not a cancellation: the same entry error stays an ExtractError.
	bad := file("bad.txt", "x")
	bad.badCRC = true
	err := newFake(bad).Extract(context.Background(), t.TempDir())
	var xe *ExtractError
	if !errors.As(err, &xe) || errors.Is(err, context.Canceled) {
		t.Errorf("checksum failure: %v", err)
	}
}
