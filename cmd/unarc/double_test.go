package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errorLines returns the lines of stderr that report an error (not the
// notes and hints around them).
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.Contains(l, "limit exceeded") || strings.Contains(l, "truncated") ||
			strings.Contains(l, "corrupt") || strings.Contains(l, "checksum") {
			out = append(out, l)
		}
	}
	return out
}

// TestOneLimitErrorOneLine: a limit error on a tar stream or a ZIP
// whose sizes are in data descriptors is printed once, naming the entry
// (t printed it for the entry and again for the archive, x once more
// as "(archive)"), with exit 7 still; read as a file and as a stream.
func TestOneLimitErrorOneLine(t *testing.T) {
	flags := []string{"-ratio-floor", "16M"} // stop the 1.5 GiB streams early
	for _, c := range []struct {
		name, entry string
		stream      bool
	}{
		{"zeros.tar.bz2", "big.bin", false},
		{"zeros.tar.bz2", "big.bin", true},
		{"dd-zeros.zip", "-", true},
	} {
		path := bombFile(t, c.name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"t", "x"} {
			args := []string{cmd}
			if cmd == "x" {
				args = append(args, "-o", t.TempDir())
			}
			args = append(args, flags...)
			var code int
			var errs string
			if c.stream {
				code, _, errs = runStdin(data, append(args, "-")...)
			} else {
				code, _, errs = runCLI(append(args, path)...)
			}
			lines := errorLines(errs)
			if code != 7 || len(lines) != 1 || !strings.Contains(lines[0], ": "+c.entry+": limit exceeded") {
				t.Errorf("%s %s (stream %v): exit %d, %d error lines, want 7 and one naming %q:\n%s",
					cmd, c.name, c.stream, code, len(lines), c.entry, errs)
			}
		}
	}
}

// TestOneCutOneLine: an archive cut inside an entry's data is reported
// once, naming the entry, with exit 2: t printed a cut tar.gz's entry
// twice (its result, then Next's sticky error); a RAR cut inside an
// entry was reported again as the archive's cut data area (t, and x as
// a warning) or, read as a stream, as the entry's once more.
func TestOneCutOneLine(t *testing.T) {
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"a.bin", "b.bin"} {
		body := make([]byte, 200<<10)
		for i := range body {
			body[i] = byte(rnd.Uint32())
		}
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write(body)
	}
	tw.Close()
	gz.Close()
	rarData, err := os.ReadFile(testdata(t, "rar/rar5_m3.rar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, entry string
		data        []byte
	}{
		{"cut.tar.gz", "b.bin", tb.Bytes()[:tb.Len()*3/4]},
		{"cut.rar", "rand.bin", rarData[:2000]},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"t", "x"} {
			for _, stream := range []bool{false, true} {
				args := []string{cmd}
				if cmd == "x" {
					args = append(args, "-o", t.TempDir())
				}
				var code int
				var errs string
				if stream {
					code, _, errs = runStdin(c.data, append(args, "-")...)
				} else {
					code, _, errs = runCLI(append(args, path)...)
				}
				lines := errorLines(errs)
				if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], ": "+c.entry+": truncated") {
					t.Errorf("%s %s (stream %v): exit %d, %d error lines, want 2 and one naming %q:\n%s",
						cmd, c.name, stream, code, len(lines), c.entry, errs)
				}
			}
		}
	}
}

// TestSameNameFailuresKept: two entries of one name that fail each
// get their line: only an archive-level repeat of a failure is dropped.
func TestSameNameFailuresKept(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, body := range []string{"first", "second"} {
		h := &zip.FileHeader{Name: "same.txt", Method: zip.Store, CRC32: 1, CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(body))}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "same.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"t", p}, {"x", "-aoa", "-o", t.TempDir(), p}, {"t", "-j", "1", p}} {
		code, _, errs := runCLI(args...)
		if n := strings.Count(errs, "same.txt: checksum mismatch"); code != 3 || n != 2 {
			t.Errorf("%v: exit %d, %d lines, want 3 and 2:\n%s", args, code, n, errs)
		}
	}
}
