package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
