package main

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc"
)

// TestTarFromPipe: cat x.tar.zst | unarc x - extracts the tarball (and a
// plain tar likewise), and a compressed tarball named as a file is
// tested through the forward path.
func TestTarFromPipe(t *testing.T) {
	bin := binary(t)
	for _, name := range []string{"tar/small.tar.zst", "tar/gnu.tar", "tar/small.tar.gz"} {
		data, err := os.ReadFile(testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		cmd := exec.Command(bin, "x", "-")
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cat %s | unarc x -: %v\n%s", name, err, out)
		}
		got, err := os.ReadFile(filepath.Join(dir, "dir", "text.txt"))
		want, _ := os.ReadFile(testdata(t, "tar/text.txt"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: dir/text.txt: %v, %d bytes, want %d", name, err, len(got), len(want))
		}
		if _, err := os.Lstat(filepath.Join(dir, "fifo")); err == nil {
			t.Errorf("%s: the FIFO was created", name)
		}
		if code, _, errs := runCLI("t", testdata(t, name)); code != 0 {
			t.Errorf("unarc t %s: exit %d: %s", name, code, errs)
		}
	}
}

// TestTarSkippedNotes: x prints one line per entry it skips (a FIFO,
// from Progress.Skipped) and t one per entry x would skip; -q silences
// them; the exit status stays 0.
func TestTarSkippedNotes(t *testing.T) {
	for _, name := range []string{"tar/small.tar.gz", "tar/gnu.tar"} {
		p := testdata(t, name)
		code, _, errs := runCLI("x", "-o", t.TempDir(), p)
		want := "unarc: " + p + ": ./fifo: skipped: a device node, FIFO or socket is not created\n"
		if code != 0 || strings.Count(errs, "skipped") != 1 || !strings.Contains(errs, want) {
			t.Errorf("unarc x %s: exit %d, stderr %q; want the line %q", name, code, errs, want)
		}
		code, _, errs = runCLI("t", p)
		want = "unarc: " + p + ": ./fifo: " + skippedNote + "\n"
		if code != 0 || strings.Count(errs, "skips") != 1 || !strings.Contains(errs, want) {
			t.Errorf("unarc t %s: exit %d, stderr %q; want the line %q", name, code, errs, want)
		}
		for _, cmd := range []string{"x", "t"} {
			args := []string{cmd, "-q", p}
			if cmd == "x" {
				args = append(args, "-o", t.TempDir())
			}
			if code, _, errs := runCLI(args...); code != 0 || strings.Contains(errs, "fifo") {
				t.Errorf("unarc %s -q %s: exit %d, stderr %q", cmd, name, code, errs)
			}
		}
	}
}

// TestTarSpecialType: -json names a FIFO "fifo" (not "file") in l and t.
func TestTarSpecialType(t *testing.T) {
	p := testdata(t, "tar/gnu.tar")
	for _, cmd := range []string{"l", "t"} {
		code, out, _ := runCLI(cmd, "-json", p)
		if want := `"name":"./fifo","type":"fifo"`; code != 0 || !strings.Contains(out, want) {
			t.Errorf("unarc %s -json gnu.tar: exit %d, output %s; want %s", cmd, code, out, want)
		}
	}
}

// TestTarStreamChecked: t on a compressed tarball does not say its
// entries could not be verified (the stream's checksum covers them; -json
// says "stream"), on a plain tar it does.
func TestTarStreamChecked(t *testing.T) {
	for _, c := range []struct {
		name       string
		unverified bool
	}{{"tar/small.tar.gz", false}, {"tar/small.tar.zst", false}, {"tar/small.tar.xz", false}, {"tar/gnu.tar", true}} {
		p := testdata(t, c.name)
		code, _, errs := runCLI("t", p)
		if code != 0 || strings.Contains(errs, "could not be verified") != c.unverified {
			t.Errorf("unarc t %s: exit %d, stderr %q", c.name, code, errs)
		}
		code, out, _ := runCLI("t", "-json", p)
		if want := `"name":"./hello.txt","type":"file","status":"stream"`; code != 0 || strings.Contains(out, want) == c.unverified {
			t.Errorf("unarc t -json %s: exit %d, output %s", c.name, code, out)
		}
	}
}

// TestCompressedTarUsesReader: a compressed tarball given as a file is
// read forward (decoded once) even when its first zstd block is larger
// than the 64 KiB head (as mixed-200's tar.zst: a 128 KiB raw block of
// random data), where decoding the head cannot show a tar header. The
// tarball is built with klauspost's encoder in the test (the zstd tool
// may be missing on a fresh clone; small files would not show it).
func TestCompressedTarUsesReader(t *testing.T) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	data := make([]byte, 300<<10)
	rand.NewChaCha8([32]byte{3}).Read(data)
	tw.WriteHeader(&tar.Header{Name: "random.bin", Size: int64(len(data)), Mode: 0o644, Typeflag: tar.TypeReg})
	tw.Write(data)
	tw.Close()
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb, zstd.WithEncoderConcurrency(1))
	zw.Write(tb.Bytes())
	zw.Close()
	p := filepath.Join(t.TempDir(), "big.tar.zst")
	if err := os.WriteFile(p, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	head := zb.Bytes()[:64<<10]
	if unarc.PreferReader(bytes.NewReader(head), int64(len(head))) {
		t.Log("the first block fits in 64 KiB: the test does not show the case")
	}
	c := &cli{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	for _, f := range []string{p, testdata(t, "tar/small.tar.bz2"), testdata(t, "tar/small.tar.gz"), testdata(t, "tar/small.tar.lzma")} {
		src, err := c.open(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if src.r == nil || src.a != nil {
			t.Errorf("%s: opened with random access (the stream would be decoded twice)", filepath.Base(f))
		}
		src.close()
	}
	// A plain tar (listed from its headers alone) and a single compressed
	// file (named from the file) keep the Archive.
	for _, f := range []string{"tar/gnu.tar", "tar/noname.txt.gz", "tar/text.txt.zst"} {
		src, err := c.open(testdata(t, f), nil)
		if err != nil {
			t.Fatal(err)
		}
		if src.a == nil {
			t.Errorf("%s: read forward, not through the Archive", f)
		}
		src.close()
	}
	if code, _, errs := runCLI("t", p); code != 0 || errs != "" {
		t.Errorf("unarc t big.tar.zst: exit %d, %q", code, errs)
	}
}
