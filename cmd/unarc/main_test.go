package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type zent struct {
	name    string
	content string
	mode    fs.FileMode
	method  uint16
	flags   uint16
	raw     bool // write content as already-compressed data with method
}

// makeZip writes a ZIP with archive/zip, which takes any name: real
// tools refuse to write the hostile ones these tests need.
func makeZip(t *testing.T, ents ...zent) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range ents {
		h := &zip.FileHeader{Name: e.name, Method: e.method, Flags: e.flags}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		if e.raw {
			h.CRC32 = crc32.ChecksumIEEE([]byte(e.content))
			h.CompressedSize64 = uint64(len(e.content))
			h.UncompressedSize64 = uint64(len(e.content))
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(e.content))
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestListTestExtract(t *testing.T) {
	p := makeZip(t, zent{name: "dir/", mode: fs.ModeDir | 0o755}, zent{name: "dir/a.txt", content: "hello", method: zip.Deflate},
		zent{name: "link", content: "dir/a.txt", mode: fs.ModeSymlink | 0o777})
	if code, out, errs := runCLI("l", p); code != 0 || !strings.Contains(out, "dir/a.txt") {
		t.Fatalf("l: %d %q %q", code, out, errs)
	}
	code, out, _ := runCLI("l", "-json", p)
	if code != 0 {
		t.Fatalf("l -json: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("l -json: %d lines, want 3:\n%s", len(lines), out)
	}
	var je jsonEntry
	if err := json.Unmarshal([]byte(lines[2]), &je); err != nil || je.Type != "symlink" || je.LinkTarget != "dir/a.txt" {
		t.Errorf("l -json line 3: %+v, %v", je, err)
	}
	if code, _, errs := runCLI("t", p); code != 0 {
		t.Fatalf("t: %d %s", code, errs)
	}
	dest := t.TempDir()
	if code, _, errs := runCLI("x", "-o", dest, p); code != 0 {
		t.Fatalf("x: %d %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "link")); err != nil || string(b) != "hello" {
		t.Errorf("extracted link reads %q, %v", b, err)
	}
}

func TestExitCodes(t *testing.T) {
	good := makeZip(t, zent{name: "a.txt", content: strings.Repeat("stored data ", 100)}, zent{name: "b.txt", content: "second"})
	data, _ := os.ReadFile(good)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	flipped := bytes.Clone(data)
	flipped[bytes.Index(flipped, []byte("stored data"))+3] ^= 0x20
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"usage", []string{"q"}, 1},
		{"missing-file", []string{"t", filepath.Join(dir, "nope.zip")}, 1},
		{"not-archive", []string{"t", write("not.zip", []byte("just some text, not an archive at all"))}, 2},
		{"truncated", []string{"t", write("trunc.zip", data[:len(data)/2])}, 2},
		{"flipped", []string{"t", write("flip.zip", flipped)}, 3},
		{"encrypted", []string{"t", makeZip(t, zent{name: "e.bin", content: "xxxxxxxxxxxxxxxx", raw: true, flags: 1})}, 4},
		{"unsupported", []string{"t", makeZip(t, zent{name: "p.bin", content: "\x06\x00\x00\x00", raw: true, method: 97})}, 5}, // WavPack
		{"ok", []string{"t", good}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.want, errs)
			}
			if code > 1 && !strings.HasPrefix(errs, "unarc: ") {
				t.Errorf("stderr %q does not start with 'unarc: '", errs)
			}
		})
	}
}

func TestExtractRefusesEscapes(t *testing.T) {
	cases := map[string][]zent{
		"dotdot":      {{name: "../evil.txt", content: "x"}},
		"absolute":    {{name: "/tmp/unarc-cli-evil.txt", content: "x"}},
		"backslash":   {{name: `..\evil.txt`, content: "x"}},
		"drive":       {{name: "C:/evil.txt", content: "x"}},
		"symlink-out": {{name: "l", content: "../../etc", mode: fs.ModeSymlink | 0o777}},
		"symlink-local-then-write": {
			{name: "d/", mode: fs.ModeDir | 0o755},
			{name: "l", content: "d", mode: fs.ModeSymlink | 0o777},
			{name: "l/evil.txt", content: "x"},
		},
		"symlink-then-write": {
			{name: "l", content: "..", mode: fs.ModeSymlink | 0o777},
			{name: "l/evil.txt", content: "x"},
		},
	}
	for name, ents := range cases {
		t.Run(name, func(t *testing.T) {
			p := makeZip(t, append(ents, zent{name: "fine.txt", content: "fine"})...)
			base := t.TempDir()
			dest := filepath.Join(base, "out")
			code, _, errs := runCLI("x", "-o", dest, p)
			if code != 6 {
				t.Errorf("exit %d, want 6; stderr: %s", code, errs)
			}
			if _, err := os.Stat(filepath.Join(dest, "fine.txt")); err != nil {
				t.Errorf("the safe entry was not extracted: %v", err)
			}
			ents, _ := os.ReadDir(base)
			if len(ents) != 1 {
				t.Errorf("something was written beside the destination: %v", ents)
			}
			if _, err := os.Stat("/tmp/unarc-cli-evil.txt"); err == nil {
				t.Error("absolute path written")
			}
		})
	}
}

// TestErrorLinesNameOnce: every error line is "unarc: ARCHIVE: ENTRY:
// message" with the entry and the prefix once, for l, t and x alike.
func TestErrorLinesNameOnce(t *testing.T) {
	arch := filepath.Join("..", "..", "testdata", "rar", "rar5_pw.rar")
	for _, args := range [][]string{
		{"t", "-p", "wrong", arch},
		{"x", "-p", "wrong", "-o", t.TempDir(), arch},
	} {
		code, _, errs := runCLI(args...)
		if code != 4 {
			t.Errorf("%v: exit %d, want 4; stderr: %s", args, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if len(lines) == 0 || lines[0] == "" {
			t.Fatalf("%v: no error lines", args)
		}
		for _, l := range lines {
			if strings.Count(l, "unarc:") != 1 || strings.Contains(l, "text.txt: text.txt") {
				t.Errorf("%v: line %q names something twice", args, l)
			}
		}
	}
}

// TestTruncatedRARWarning: a RAR missing only its end-of-archive record
// lists and decodes every entry, but it is cut: `t` says so and exits 2
// (unrar: "Unexpected end of archive"), through a file and a pipe.
func TestTruncatedRARWarning(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rar", "rar5_m3.rar"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.rar")
	if err := os.WriteFile(cut, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI("t", cut)
	if code != 2 || !strings.Contains(errs, "truncated") {
		t.Errorf("t on a cut RAR: exit %d, stderr %q; want 2 naming the truncation", code, errs)
	}
	if code, _, _ := runCLI("t", filepath.Join("..", "..", "testdata", "rar", "rar5_m3.rar")); code != 0 {
		t.Errorf("t on the whole RAR: exit %d", code)
	}
}
