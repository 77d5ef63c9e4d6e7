package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeTree builds a source tree with files, an empty file, empty and
// nested directories, a symlink and modes/times worth preserving.
func makeTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "parent", "src")
	mt := time.Date(2022, 3, 4, 5, 6, 7, 800, time.UTC)
	mk := func(rel string, data string, mode os.FileMode) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Chtimes(p, mt, mt)
	}
	mk("a.txt", strings.Repeat("hello unarc a\n", 500), 0o644)
	mk("bin/tool", "\x7fELF\x02\x01\x01"+strings.Repeat("\xe8\x10\x00\x00\x00code", 900), 0o755)
	mk("deep/er/x.dat", strings.Repeat("\x00\x01\x02", 3000), 0o600)
	mk("empty", "", 0o640)
	noise := make([]byte, 6000)
	for i, x := 0, uint32(1); i < len(noise); i++ {
		x = x*1664525 + 1013904223
		noise[i] = byte(x >> 24)
	}
	mk("noise.bin", string(noise), 0o644)
	os.MkdirAll(filepath.Join(root, "emptydir", "inner"), 0o755)
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	return root
}

// sameTree compares two trees: names, types, contents, modes, link
// targets and file modification times.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	wl, gl := tree(want), tree(got)
	if strings.Join(wl, "\n") != strings.Join(gl, "\n") {
		t.Fatalf("trees differ:\nwant %v\ngot  %v", wl, gl)
	}
	for _, rel := range wl {
		a, b := filepath.Join(want, rel), filepath.Join(got, rel)
		sa, _ := os.Lstat(a)
		sb, err := os.Lstat(b)
		if err != nil {
			t.Fatal(err)
		}
		if sa.Mode() != sb.Mode() {
			t.Errorf("%s: mode %v, want %v", rel, sb.Mode(), sa.Mode())
		}
		switch {
		case sa.Mode()&fs.ModeSymlink != 0:
			la, _ := os.Readlink(a)
			lb, _ := os.Readlink(b)
			if la != lb {
				t.Errorf("%s: link %q, want %q", rel, lb, la)
			}
		case sa.Mode().IsRegular():
			da, _ := os.ReadFile(a)
			db, _ := os.ReadFile(b)
			if !bytes.Equal(da, db) {
				t.Errorf("%s: content differs", rel)
			}
			if !sa.ModTime().Equal(sb.ModTime()) {
				t.Errorf("%s: mtime %v, want %v", rel, sb.ModTime(), sa.ModTime())
			}
		}
	}
}

// TestAddExtract: `unarc a` then `unarc x` and `7zz x` reproduce the
// tree exactly, plain and encrypted with hidden names.
func TestAddExtract(t *testing.T) {
	src := makeTree(t)
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"default", nil},
		{"aes-he-lzma", []string{"-p", "pw", "-he", "-m", "lzma", "-l", "3"}},
		{"copy-nonsolid", []string{"-m", "copy", "-ms", "off"}},
		{"volumes", []string{"-v", "2k", "-l", "1"}},
		{"zstd-swap4", []string{"-m", "zstd", "-mf", "swap4"}},
		{"brotli", []string{"-m", "brotli", "-l", "9"}},
		{"lz4-swap2", []string{"-m", "lz4", "-mf", "swap2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			arch := filepath.Join(dir, "out.7z")
			args := append([]string{"a"}, c.flags...)
			args = append(args, arch, src)
			if code, _, errs := runCLI(args...); code != 0 {
				t.Fatalf("unarc a: exit %d: %s", code, errs)
			}
			first := arch
			if c.name == "volumes" {
				first = arch + ".001"
				if _, err := os.Stat(arch + ".003"); err != nil {
					t.Fatalf("volumes: %v", err)
				}
			}
			pw := []string{}
			if len(c.flags) > 1 && c.flags[0] == "-p" {
				pw = []string{"-p", "pw"}
			}
			out := filepath.Join(dir, "x")
			if code, _, errs := runCLI(append([]string{"x", "-preserve-perms", "-o", out, first}, pw...)...); code != 0 {
				t.Fatalf("unarc x: exit %d: %s", code, errs)
			}
			sameTree(t, filepath.Dir(src), out)
			if len(c.flags) > 1 && (c.flags[1] == "zstd" || c.flags[1] == "brotli" || c.flags[1] == "lz4") {
				return // 7zz has none of the 7-Zip-zstd family's coders
			}
			if _, err := exec.LookPath("7zz"); err != nil {
				t.Skip("7zz not installed")
			}
			out7 := filepath.Join(dir, "x7")
			args7 := []string{"x", "-bd", "-y", "-snl", "-o" + out7, first}
			if len(pw) > 0 {
				args7 = append(args7, "-ppw")
			}
			if b, err := exec.Command("7zz", args7...).CombinedOutput(); err != nil {
				t.Fatalf("7zz x: %v\n%s", err, b)
			}
			sameTree(t, filepath.Dir(src), out7)
			if len(pw) > 0 {
				// -he: the names are hidden without the password.
				if b, _ := exec.Command("7zz", "l", "-p-", first).CombinedOutput(); bytes.Contains(b, []byte("a.txt")) {
					t.Errorf("names visible with -he:\n%s", b)
				}
			}
		})
	}
}

func TestAddErrors(t *testing.T) {
	src := makeTree(t)
	dir := t.TempDir()
	arch := filepath.Join(dir, "out.7z")
	for _, args := range [][]string{
		{"a", arch},
		{"a", "-l", "12", arch, src},
		{"a", "-m", "lzham", arch, src},
		{"a", "-he", arch, src},
		{"a", "-mf", "delta:999", arch, src},
		{"a", arch, filepath.Join(dir, "missing")},
	} {
		if code, _, errs := runCLI(args...); code != 1 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
		if _, err := os.Stat(arch); err == nil {
			t.Fatalf("%v left %s behind", args, arch)
		}
	}
	if code, _, errs := runCLI("a", arch, src); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	before, _ := os.ReadFile(arch)
	if code, _, _ := runCLI("a", arch, src); code == 0 {
		t.Error("an existing archive was replaced")
	}
	if after, _ := os.ReadFile(arch); !bytes.Equal(before, after) {
		t.Error("the existing archive changed")
	}
	// Adding the directory the archive is written into leaves the
	// archive (its temporary file) out.
	if code, _, errs := runCLI("a", filepath.Join(src, "self.7z"), src); code != 0 {
		t.Fatalf("archive inside the tree: exit %d: %s", code, errs)
	}
	code, out, _ := runCLI("l", filepath.Join(src, "self.7z"))
	if code != 0 || strings.Contains(out, "self.7z") || strings.Contains(out, ".tmp-") {
		t.Errorf("archive inside its own tree: exit %d\n%s", code, out)
	}
	os.Remove(filepath.Join(src, "self.7z"))
}

func TestAddStdout(t *testing.T) {
	src := makeTree(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"a", "-", src}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	arch := filepath.Join(t.TempDir(), "piped.7z")
	os.WriteFile(arch, stdout.Bytes(), 0o644)
	out := filepath.Join(t.TempDir(), "x")
	if code, _, errs := runCLI("x", "-preserve-perms", "-o", out, arch); code != 0 {
		t.Fatalf("x: exit %d: %s", code, errs)
	}
	sameTree(t, filepath.Dir(src), out)
}

// TestAddEmptyPassword: -p "" (an unset $PASS) is refused, never an
// archive in clear; with -he too.
func TestAddEmptyPassword(t *testing.T) {
	src := makeTree(t)
	arch := filepath.Join(t.TempDir(), "out.7z")
	for _, args := range [][]string{
		{"a", "-p", "", arch, src},
		{"a", "-p=", arch, src},
		{"a", "-p", "", "-he", arch, src},
		{"a", arch, src, "-p", ""},
	} {
		code, _, errs := runCLI(args...)
		if code != 1 || !strings.Contains(errs, "empty password") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
		if _, err := os.Stat(arch); err == nil {
			t.Fatalf("%q wrote %s", args, arch)
		}
	}
}

// TestAddTopSymlink: a symlink given as PATH is stored as a link, as
// the help says; -H stores what it points to under its name.
func TestAddTopSymlink(t *testing.T) {
	src := makeTree(t)
	dir := filepath.Dir(src)
	if err := os.Symlink("src", filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/a.txt", filepath.Join(dir, "filelink")); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(dir, "dirlink"), filepath.Join(dir, "filelink")}
	arch := filepath.Join(t.TempDir(), "links.7z")
	if code, _, errs := runCLI("a", arch, paths[0], paths[1]); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out := filepath.Join(t.TempDir(), "x")
	if code, _, errs := runCLI("x", "-o", out, arch); code != 0 {
		t.Fatalf("x: exit %d: %s", code, errs)
	}
	for name, target := range map[string]string{"dirlink": "src", "filelink": "src/a.txt"} {
		if got, err := os.Readlink(filepath.Join(out, name)); err != nil || got != target {
			t.Errorf("%s: link %q (%v), want %q", name, got, err, target)
		}
	}
	if names := tree(out); len(names) != 2 {
		t.Errorf("without -H: %q, want the two links", names)
	}
	archH := filepath.Join(t.TempDir(), "followed.7z")
	if code, _, errs := runCLI("a", "-H", archH, paths[0], paths[1]); code != 0 {
		t.Fatalf("-H: exit %d: %s", code, errs)
	}
	outH := filepath.Join(t.TempDir(), "x")
	if code, _, errs := runCLI("x", "-preserve-perms", "-o", outH, archH); code != 0 {
		t.Fatalf("x: exit %d: %s", code, errs)
	}
	sameTree(t, src, filepath.Join(outH, "dirlink"))
	if b, err := os.ReadFile(filepath.Join(outH, "filelink")); err != nil || !strings.HasPrefix(string(b), "hello unarc a") {
		t.Errorf("-H filelink: %q %v", b, err)
	}
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	for _, a := range []string{arch, archH} {
		if b, err := exec.Command("7zz", "t", "-bd", a).CombinedOutput(); err != nil {
			t.Errorf("7zz t %s: %v\n%s", a, err, b)
		}
	}
}

// TestAddZip: `unarc a x.zip` writes ZIP (by the extension, or -t zip
// for any name and standard output), which unarc x and, when installed,
// 7zz, unzip and bsdtar extract as the tree was; with -p, WinZip AES.
func TestAddZip(t *testing.T) {
	src := makeTree(t)
	for _, c := range []struct {
		name  string
		flags []string
		pw    string
	}{
		{"default", nil, ""},
		{"aes", []string{"-p", "pw"}, "pw"},
		{"zstd", []string{"-m", "zstd", "-l", "3"}, ""},
		{"forced", []string{"-t", "zip"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			arch := filepath.Join(dir, "out.zip")
			if c.name == "forced" {
				arch = filepath.Join(dir, "out.bin")
			}
			args := append(append([]string{"a"}, c.flags...), arch, src)
			if code, _, errs := runCLI(args...); code != 0 {
				t.Fatalf("unarc a: exit %d: %s", code, errs)
			}
			if b, _ := os.ReadFile(arch); !bytes.HasPrefix(b, []byte("PK\x03\x04")) {
				t.Fatalf("not a ZIP: % x", b[:min(len(b), 8)])
			}
			pw := []string{}
			if c.pw != "" {
				pw = []string{"-p", c.pw}
			}
			out := filepath.Join(dir, "x")
			if code, _, errs := runCLI(append([]string{"x", "-preserve-perms", "-o", out, arch}, pw...)...); code != 0 {
				t.Fatalf("unarc x: exit %d: %s", code, errs)
			}
			sameTree(t, filepath.Dir(src), out)
			tools := [][]string{{"7zz", "x", "-bd", "-y", "-snl", "-o" + filepath.Join(dir, "7zz"), arch}}
			if c.pw != "" {
				tools[0] = append(tools[0], "-p"+c.pw)
				tools = append(tools, []string{"bsdtar", "-x", "-p", "--passphrase", c.pw, "-f", arch, "-C", filepath.Join(dir, "bsdtar")})
			} else {
				tools = append(tools, []string{"bsdtar", "-x", "-p", "-f", arch, "-C", filepath.Join(dir, "bsdtar")})
				if c.name != "zstd" {
					tools = append(tools, []string{"unzip", "-q", arch, "-d", filepath.Join(dir, "unzip")})
				}
			}
			for _, tool := range tools {
				if _, err := exec.LookPath(tool[0]); err != nil {
					continue
				}
				os.Mkdir(filepath.Join(dir, tool[0]), 0o755)
				if b, err := exec.Command(tool[0], tool[1:]...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tool[0], err, b)
				}
				sameTreeSeconds(t, filepath.Dir(src), filepath.Join(dir, tool[0]), tool[0] == "7zz")
			}
		})
	}
	// Standard output: -t zip streams it.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"a", "-t", "zip", "-", src}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	arch := filepath.Join(t.TempDir(), "piped.zip")
	os.WriteFile(arch, stdout.Bytes(), 0o644)
	out := filepath.Join(t.TempDir(), "x")
	if code, _, errs := runCLI("x", "-preserve-perms", "-o", out, arch); code != 0 {
		t.Fatalf("x: exit %d: %s", code, errs)
	}
	sameTree(t, filepath.Dir(src), out)
	// 7z's own options are refused for ZIP.
	if code, _, errs := runCLI("a", "-ms", "off", filepath.Join(t.TempDir(), "o.zip"), src); code != 1 || errs == "" {
		t.Errorf("-ms with ZIP: exit %d, %q", code, errs)
	}
}

// sameTreeSeconds is sameTree for a tool that keeps whole seconds only
// (Info-ZIP's and libarchive's time field): times are compared to the
// second unless exact.
func sameTreeSeconds(t *testing.T, want, got string, exact bool) {
	t.Helper()
	if exact {
		sameTree(t, want, got)
		return
	}
	wl, gl := tree(want), tree(got)
	if strings.Join(wl, "\n") != strings.Join(gl, "\n") {
		t.Fatalf("trees differ:\nwant %v\ngot  %v", wl, gl)
	}
	for _, rel := range wl {
		sa, _ := os.Lstat(filepath.Join(want, rel))
		sb, _ := os.Lstat(filepath.Join(got, rel))
		if sa.Mode() != sb.Mode() {
			t.Errorf("%s: mode %v, want %v", rel, sb.Mode(), sa.Mode())
		}
		if sa.Mode().IsRegular() && sa.ModTime().Unix() != sb.ModTime().Unix() {
			t.Errorf("%s: mtime %v, want %v", rel, sb.ModTime(), sa.ModTime())
		}
	}
}
