//go:build unix

package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bigZip writes a ZIP holding one entry of n zero bytes (small on disk,
// long to extract).
func bigZip(t *testing.T, n int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	w, err := zw.Create("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for written := int64(0); written < n; written += int64(len(buf)) {
		w.Write(buf)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func TestSignalsRemoveTempFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large file")
	}
	bin := binary(t)
	z := bigZip(t, 2<<30)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dest := t.TempDir()
			cmd := exec.Command(bin, "x", "-no-limits", "-o", dest, z) // the zeros pass the default ratio limit
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				if m, _ := filepath.Glob(filepath.Join(dest, ".unarc-*.tmp")); len(m) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no temporary file appeared")
				}
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 1 {
				t.Errorf("after %v: %v, want exit status 1; stderr %s", sig, err, errb.String())
			}
			if !strings.Contains(errb.String(), "interrupted") {
				t.Errorf("stderr %q does not say interrupted", errb.String())
			}
			if got := tree(dest); len(got) != 0 {
				t.Errorf("left behind after %v: %v", sig, got)
			}
		})
	}
}

// inTerminal runs the built command inside a pseudo-terminal with
// script(1) and returns what the terminal showed. Line i of input is
// typed once the output holds i+1 prompts (a fixed pause let a loaded
// machine echo a password typed before the prompt had turned echo off).
func inTerminal(t *testing.T, dir, command, prompt string, input []string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) not installed")
	}
	cmd := exec.Command("script", "-qec", command, "/dev/null")
	cmd.Dir = dir
	pr, pw := io.Pipe()
	cmd.Stdin = pr
	var out lockedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		for i, line := range input {
			deadline := time.Now().Add(60 * time.Second)
			for strings.Count(out.String(), prompt) <= i && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond) // the prompt is printed before echo goes off
			io.WriteString(pw, line+"\n")
		}
		time.Sleep(5 * time.Second) // keep the terminal open until the command ends
		pw.Close()
	}()
	err := cmd.Wait()
	pw.Close()
	return out.String(), err
}

// lockedBuffer is a bytes.Buffer that the command writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestTerminalPasswordPrompt(t *testing.T) {
	bin := binary(t)
	pw := testdata(t, "rar/rar5_pw.rar")
	dir := t.TempDir()
	out, err := inTerminal(t, dir, bin+" x -o out "+pw, "Password for ", []string{"wrong", "test"})
	if err != nil {
		t.Fatalf("%v\n%q", err, out)
	}
	if strings.Count(out, "Password for ") != 2 || !strings.Contains(out, "unarc: "+pw+": wrong password") {
		t.Errorf("want a prompt, 'wrong password', a second prompt:\n%q", out)
	}
	if o := strings.ReplaceAll(out, pw, "ARCHIVE"); strings.Contains(o, "test") || strings.Contains(o, "wrong\r") {
		t.Errorf("the password was echoed:\n%q", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", "sub/deeper/n.txt")); err != nil || len(b) == 0 {
		t.Errorf("not extracted after the prompt: %v", err)
	}
	// The overwrite question, on the same terminal: (n)o, then (A)lways.
	out, err = inTerminal(t, dir, bin+" x -p test -o out "+pw, "(y)es / (n)o", []string{"n", "A"})
	if err != nil {
		t.Fatalf("%v\n%q", err, out)
	}
	if strings.Count(out, "(y)es / (n)o / (A)lways / (N)ever / (r)ename") != 2 {
		t.Errorf("want two questions (n, then A for the rest):\n%q", out)
	}
}

func TestTerminalProgress(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	// A FIFO fed slowly makes the extraction last over a second.
	fifo := filepath.Join(dir, "in.zip")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	z := bigZip(t, 64<<20)
	data, _ := os.ReadFile(z)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		step := len(data)/20 + 1
		for i := 0; i < len(data); i += step {
			f.Write(data[i:min(i+step, len(data))])
			time.Sleep(100 * time.Millisecond)
		}
	}()
	out, err := inTerminal(t, dir, bin+" x -no-limits -o out "+fifo, "", nil)
	if err != nil {
		t.Fatalf("%v\n%q", err, out)
	}
	if !strings.Contains(out, "B/s") || !strings.Contains(out, "big.bin") || !strings.Contains(out, "\r") {
		t.Errorf("no progress line:\n%q", out)
	}
	if st, err := os.Stat(filepath.Join(dir, "out", "big.bin")); err != nil || st.Size() != 64<<20 {
		t.Errorf("big.bin: %v", err)
	}
	// -q and a non-terminal stderr: nothing.
	out, err = inTerminal(t, dir, bin+" t -q -no-limits "+z, "", nil)
	if err != nil || strings.Contains(out, "B/s") {
		t.Errorf("-q: %v %q", err, out)
	}
}
