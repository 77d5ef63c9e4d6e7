package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the command once for the tests that need a real process
// (pipes, signals, a terminal).
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "unarc-cli-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "unarc")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func testdata(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "testdata", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s missing", p)
	}
	abs, _ := filepath.Abs(p)
	return abs
}

// tree lists the paths under dir, '/'-separated, sorted.
func tree(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func TestFlagsAfterArchive(t *testing.T) {
	pw := testdata(t, "rar/rar5_pw.rar")
	dest := t.TempDir()
	if code, _, errs := runCLI("x", pw, "-o", dest, "-p", "test"); code != 0 {
		t.Fatalf("x ARCHIVE -o DIR -p PW: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "sub/deeper/n.txt")); err != nil || len(b) == 0 {
		t.Errorf("not extracted: %v", err)
	}
	code, out, _ := runCLI("l", pw, "-json", "-p", "test", "text.txt")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"name":"text.txt"`) {
		t.Errorf("l ARCHIVE -json NAME: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI("x", pw, "-bogus"); code != 1 || !strings.Contains(errs, "bogus") {
		t.Errorf("unknown flag: exit %d, stderr %q", code, errs)
	}
	if code, out, _ := runCLI("--version"); code != 0 || !strings.HasPrefix(out, "unarc ") {
		t.Errorf("--version: %d %q", code, out)
	}
}

func TestPatterns(t *testing.T) {
	solid := testdata(t, "rar/rar5_solid.rar")
	dest := t.TempDir()
	if code, _, errs := runCLI("x", "-o", dest, solid, "sub/*"); code != 0 {
		t.Fatalf("x 'sub/*': exit %d: %s", code, errs)
	}
	for _, p := range tree(dest) {
		if p != "sub" && !strings.HasPrefix(p, "sub/") {
			t.Errorf("extracted %s, outside the pattern", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "sub/deeper/n.txt")); err != nil {
		t.Errorf("sub/deeper/n.txt not extracted (a pattern matching a directory selects its contents): %v", err)
	}
	dest2 := t.TempDir()
	if code, _, errs := runCLI("x", "-o", dest2, solid, "text.txt"); code != 0 {
		t.Fatalf("x NAME: exit %d: %s", code, errs)
	}
	if got := tree(dest2); strings.Join(got, ",") != "text.txt" {
		t.Errorf("x text.txt extracted %v", got)
	}
	code, _, errs := runCLI("t", solid, "nothing-*")
	if code != 1 || !strings.Contains(errs, "nothing-*: no entry matches") {
		t.Errorf("unmatched pattern: exit %d, %q", code, errs)
	}
	if code, _, _ := runCLI("l", solid, "[bad"); code != 1 {
		t.Errorf("bad pattern: exit %d", code)
	}
}

func TestStdin(t *testing.T) {
	bin := binary(t)
	z := testdata(t, "zip/infozip-deflate.zip")
	data, _ := os.ReadFile(z)
	run := func(stdin []byte, args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Stdin = bytes.NewReader(stdin) // a pipe, not a file
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	if code, _, errs := run(data, "t", "-"); code != 0 {
		t.Errorf("cat a.zip | unarc t -: exit %d: %s", code, errs)
	}
	if code, out, errs := run(data, "l", "/dev/stdin"); code != 0 || !strings.Contains(out, "hello.txt") {
		t.Errorf("unarc l /dev/stdin from a pipe: exit %d: %s%s", code, out, errs)
	}
	if code, out, _ := run(data, "l"); code != 0 || !strings.Contains(out, "hello.txt") {
		t.Errorf("unarc l (no file): exit %d", code)
	}
	dest := t.TempDir()
	if code, _, errs := run(data, "x", "-", "-o", dest, "hello.txt"); code != 0 {
		t.Errorf("x - NAME: exit %d: %s", code, errs)
	}
	if got := tree(dest); strings.Join(got, ",") != "hello.txt" {
		t.Errorf("x - hello.txt extracted %v", got)
	}
	// A truncated stream is exit 2.
	if code, _, _ := run(data[:len(data)/2], "t", "-"); code != 2 {
		t.Errorf("truncated stream: exit %d, want 2", code)
	}
	sz := testdata(t, "7z/copy.7z")
	data7, _ := os.ReadFile(sz)
	if code, _, errs := run(data7, "l", "-"); code != 5 || !strings.Contains(errs, "needs random access") {
		t.Errorf("7z on a pipe: exit %d, %q", code, errs)
	}
}

// prepare makes the destination of the conflict tests: a file where the
// archive has a directory, a directory where it has a file, a symlink to
// outside where it has a directory, and an edited file.
func prepare(t *testing.T) (dest, elsewhere string) {
	base := t.TempDir()
	dest = filepath.Join(base, "dest")
	elsewhere = filepath.Join(base, "elsewhere")
	os.MkdirAll(filepath.Join(dest, "adir"), 0o755)
	os.MkdirAll(elsewhere, 0o755)
	os.WriteFile(filepath.Join(dest, "emptydir"), []byte("user file"), 0o644)
	os.WriteFile(filepath.Join(dest, "adir", "mine.txt"), []byte("user data"), 0o644)
	os.WriteFile(filepath.Join(dest, "hello.txt"), []byte("user edits"), 0o644)
	if err := os.Symlink(elsewhere, filepath.Join(dest, "linkdir")); err != nil {
		t.Fatal(err)
	}
	return dest, elsewhere
}

func TestExtractOverExistingCLI(t *testing.T) {
	z := makeZip(t, zent{name: "emptydir/", mode: fs.ModeDir | 0o755}, zent{name: "emptydir/in.txt", content: "in"},
		zent{name: "adir", content: "archive file"},
		zent{name: "linkdir/", mode: fs.ModeDir | 0o755}, zent{name: "linkdir/f.txt", content: "through?"},
		zent{name: "hello.txt", content: "archive hello"}, zent{name: "new.txt", content: "new"})
	conflicts := []string{"emptydir/: file already exists: it is a regular file",
		"emptydir/in.txt: file already exists: parent \"emptydir\" is a regular file",
		"adir: file already exists: it is a directory",
		"linkdir/: file already exists: it is a symlink",
		"linkdir/f.txt: file already exists: parent \"linkdir\" is a symlink"}
	tests := []struct {
		flags   []string
		hello   string
		extra   []string // stderr lines expected besides the conflicts
		renamed string
	}{
		{nil, "user edits", []string{"hello.txt: file already exists: not overwritten", "choose with -overwrite"}, ""},
		{[]string{"-overwrite=error"}, "user edits", []string{"hello.txt: file already exists: not overwritten"}, ""},
		{[]string{"-overwrite=never"}, "user edits", []string{"1 existing files kept"}, ""},
		{[]string{"-aos"}, "user edits", []string{"1 existing files kept"}, ""},
		{[]string{"-overwrite=always"}, "archive hello", nil, ""},
		{[]string{"-aoa"}, "archive hello", nil, ""},
		{[]string{"-overwrite=rename"}, "user edits", nil, "hello_1.txt"},
		{[]string{"-aou"}, "user edits", nil, "hello_1.txt"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(append([]string{"x"}, tc.flags...), " "), func(t *testing.T) {
			dest, elsewhere := prepare(t)
			args := append([]string{"x", z, "-o", dest}, tc.flags...)
			code, _, errs := runCLI(args...)
			if code != exitConflict {
				t.Errorf("exit %d, want %d", code, exitConflict)
			}
			want := conflicts
			if tc.renamed != "" {
				want = []string{conflicts[0], conflicts[1], conflicts[3], conflicts[4]} // adir is written as adir_1
			}
			for _, w := range append(want, tc.extra...) {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if len(tc.flags) > 0 && tc.flags[0] != "-overwrite=error" && strings.Contains(errs, "choose with -overwrite") {
				t.Errorf("suggests an -overwrite flag although no flag would resolve what is left:\n%s", errs)
			}
			if b, _ := os.ReadFile(filepath.Join(dest, "emptydir")); string(b) != "user file" {
				t.Errorf("the user's file emptydir was replaced")
			}
			if b, _ := os.ReadFile(filepath.Join(dest, "adir", "mine.txt")); string(b) != "user data" {
				t.Errorf("the user's directory adir was touched")
			}
			if st, err := os.Lstat(filepath.Join(dest, "linkdir")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the user's symlink was replaced")
			}
			if len(tree(elsewhere)) != 0 {
				t.Errorf("written through the user's symlink: %v", tree(elsewhere))
			}
			if b, _ := os.ReadFile(filepath.Join(dest, "hello.txt")); string(b) != tc.hello {
				t.Errorf("hello.txt = %q, want %q", b, tc.hello)
			}
			if b, _ := os.ReadFile(filepath.Join(dest, "new.txt")); string(b) != "new" {
				t.Errorf("new.txt = %q", b)
			}
			if tc.renamed != "" {
				if b, _ := os.ReadFile(filepath.Join(dest, tc.renamed)); string(b) != "archive hello" {
					t.Errorf("%s = %q", tc.renamed, b)
				}
			}
		})
	}
	// Only an edited file in the way: the policy flags decide the status.
	for flag, want := range map[string]int{"": exitConflict, "-aoa": 0, "-aos": 0, "-aou": 0} {
		dest := t.TempDir()
		os.WriteFile(filepath.Join(dest, "hello.txt"), []byte("user edits"), 0o644)
		args := []string{"x", "-o", dest, z, "hello.txt"}
		if flag != "" {
			args = append(args, flag)
		}
		if code, _, errs := runCLI(args...); code != want {
			t.Errorf("x %s over an edited file: exit %d, want %d: %s", flag, code, want, errs)
		}
	}
	if code, _, _ := runCLI("x", z, "-overwrite=ask", "-o", t.TempDir()); code != 1 {
		t.Errorf("-overwrite=ask without a terminal: exit %d, want 1", code)
	}
}

func TestLimitFlagsAndNames(t *testing.T) {
	bomb := makeZip(t, zent{name: "zeros.bin", content: strings.Repeat("\x00", 40<<20), method: zip.Deflate})
	if code, _, errs := runCLI("t", bomb, "-max-entry-size", "1M"); code != 7 {
		t.Errorf("-max-entry-size 1M: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("t", bomb, "-max-entry-size", "1M", "-no-limits"); code != 0 {
		t.Errorf("-no-limits: exit %d, %s", code, errs)
	}
	if code, _, _ := runCLI("t", bomb, "-max-ratio", "lots"); code != 1 {
		t.Errorf("bad -max-ratio value: exit %d, want 1", code)
	}
	names := makeZip(t, zent{name: "deep/a/b/c/d.txt", content: "x"}, zent{name: strings.Repeat("n", 300), content: "x"}, zent{name: "ok.txt", content: "ok"})
	dest := t.TempDir()
	code, _, errs := runCLI("x", names, "-o", dest, "-max-depth", "3")
	if code != 7 || !strings.Contains(errs, "MaxPathDepth") {
		t.Errorf("-max-depth 3: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "name too long for the destination file system") {
		t.Errorf("ENAMETOOLONG not explained: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(dest, "deep")); err == nil {
		t.Error("a refused entry left a directory behind")
	}
	dest = t.TempDir()
	if code, _, errs := runCLI("x", names, "-o", dest); code != exitConflict {
		t.Errorf("name too long for the file system: exit %d, want %d: %s", code, exitConflict, errs)
	}
}

// noCRC7z builds a 7z archive by hand with one Copy-coded file and no
// CRC digest anywhere (7z allows it; the tools always write one).
func noCRC7z(t *testing.T, name, content string) string {
	t.Helper()
	var hdr []byte
	add := func(b ...byte) { hdr = append(hdr, b...) }
	const (
		kEnd, kHeader, kMainStreamsInfo, kFilesInfo = 0x00, 0x01, 0x04, 0x05
		kPackInfo, kUnPackInfo, kSize, kFolder      = 0x06, 0x07, 0x09, 0x0B
		kCodersUnPackSize, kName                    = 0x0C, 0x11
	)
	n := byte(len(content)) // < 0x80: one-byte 7z number
	add(kHeader, kMainStreamsInfo)
	add(kPackInfo, 0 /*pack pos*/, 1 /*streams*/, kSize, n, kEnd)
	add(kUnPackInfo, kFolder, 1 /*folders*/, 0 /*not external*/, 1 /*coders*/, 0x01 /*id size 1, simple*/, 0x00 /*Copy*/)
	add(kCodersUnPackSize, n, kEnd)
	add(kEnd) // no SubStreamsInfo: one file per folder, no digests
	var u16 []byte
	for _, r := range name {
		u16 = append(u16, byte(r), byte(r>>8))
	}
	u16 = append(u16, 0, 0)
	add(kFilesInfo, 1 /*files*/, kName, byte(len(u16)+1), 0 /*not external*/)
	add(u16...)
	add(kEnd, kEnd)
	start := make([]byte, 20)
	putLE(start[0:], uint64(len(content)), 8) // next header offset (after the signature header)
	putLE(start[8:], uint64(len(hdr)), 8)
	putLE(start[16:], uint64(crc32.ChecksumIEEE(hdr)), 4)
	sig := []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4}
	crc := make([]byte, 4)
	putLE(crc, uint64(crc32.ChecksumIEEE(start)), 4)
	var out []byte
	out = append(append(append(append(append(out, sig...), crc...), start...), content...), hdr...)
	p := filepath.Join(t.TempDir(), "nocrc.7z")
	os.WriteFile(p, out, 0o644)
	return p
}

func putLE(b []byte, v uint64, n int) {
	for i := 0; i < n; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

func TestTestReportsUnverifiable(t *testing.T) {
	p := noCRC7z(t, "plain.txt", "no checksum for me")
	code, out, errs := runCLI("l", "-json", p)
	if code != 0 || !strings.Contains(out, `"name":"plain.txt"`) || strings.Contains(out, "crc32") {
		t.Fatalf("l: exit %d: %s%s", code, out, errs)
	}
	code, _, errs = runCLI("t", p)
	if code != 0 {
		t.Errorf("t: exit %d, want 0 (unverifiable is not an error): %s", code, errs)
	}
	if !strings.Contains(errs, "1 of 1 entries could not be verified") {
		t.Errorf("t does not say what it could not verify: %q", errs)
	}
	good := makeZip(t, zent{name: "a.txt", content: "checked"})
	if code, _, errs := runCLI("t", good); code != 0 || strings.Contains(errs, "verified") {
		t.Errorf("t on a checksummed archive: exit %d, %q", code, errs)
	}
}
