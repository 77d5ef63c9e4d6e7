package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnglue: -oDIR and -pPASSWORD become -o=DIR and -p=PASSWORD, and
// nothing else changes: a flag of that exact name, a flag's value, a
// --long form and everything after -- stay as they are.
func TestUnglue(t *testing.T) {
	fl := flag.NewFlagSet("x", flag.ContinueOnError)
	fl.String("o", "", "")
	fl.String("p", "", "")
	fl.String("overwrite", "", "")
	fl.Bool("preserve-perms", false, "")
	fl.Bool("q", false, "")
	fl.Bool("progress", false, "")
	tests := []struct{ in, want []string }{
		{[]string{"-oout", "-psecret", "a.rar"}, []string{"-o=out", "-p=secret", "a.rar"}},
		{[]string{"a.rar", "-o/abs/dir", "-pse=cret"}, []string{"a.rar", "-o=/abs/dir", "-p=se=cret"}},
		{[]string{"-o", "out", "-p", "pw"}, []string{"-o", "out", "-p", "pw"}},
		{[]string{"-o=out", "-p=pw"}, []string{"-o=out", "-p=pw"}},
		{[]string{"-preserve-perms", "-progress", "-q"}, []string{"-preserve-perms", "-progress", "-q"}},
		{[]string{"-overwrite", "always", "-overwrite=never"}, []string{"-overwrite", "always", "-overwrite=never"}},
		{[]string{"-o", "-pdir", "-p", "-ofoo"}, []string{"-o", "-pdir", "-p", "-ofoo"}}, // values
		{[]string{"--pfoo", "--o=x"}, []string{"--pfoo", "--o=x"}},
		{[]string{"-q", "--", "-pfile", "-odir"}, []string{"-q", "--", "-pfile", "-odir"}},
		{[]string{"-", "-o", "-p"}, []string{"-", "-o", "-p"}},
		{[]string{"-x"}, []string{"-x"}},
	}
	for _, tc := range tests {
		if got := unglue(fl, tc.in, "o", "p"); !slices.Equal(got, tc.want) {
			t.Errorf("unglue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A command without -o (l, t) leaves -oDIR for the flag package to refuse.
	noO := flag.NewFlagSet("t", flag.ContinueOnError)
	noO.String("p", "", "")
	if got := unglue(noO, []string{"-oout", "-ppw"}, "o", "p"); !slices.Equal(got, []string{"-oout", "-p=pw"}) {
		t.Errorf("without -o: %q", got)
	}
}

// TestGluedFlags: x takes -oDIR and -pPASSWORD as 7zz and unrar write
// them, before or after the archive, and -preserve-perms stays a flag.
func TestGluedFlags(t *testing.T) {
	pw := testdata(t, "rar/rar5_pw.rar")
	for _, args := range [][]string{
		{"x", "-oDEST", "-ptest", pw},
		{"x", pw, "-oDEST/", "-ptest"},
		{"x", "-ptest", "-preserve-perms", "-oDEST", pw},
	} {
		dest := filepath.Join(t.TempDir(), "out")
		for i, a := range args {
			args[i] = strings.Replace(a, "DEST", dest, 1)
		}
		code, _, errs := runCLI(args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errs)
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dest, "sub/deeper/n.txt")); err != nil || len(b) == 0 {
			t.Errorf("%q: not extracted into -o: %v", args, err)
		}
	}
	code, _, errs := runCLI("t", "-ptest", pw)
	if code != 0 {
		t.Errorf("t -ptest: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI("t", "-oout", pw); code != 1 || !strings.Contains(errs, "-oout") {
		t.Errorf("t -oout (t has no -o): exit %d, %q", code, errs)
	}
	// A flag of another command is refused, not taken as a password.
	if code, _, errs := runCLI("t", "-ptest", "-preserve-perms", pw); code != 1 || !strings.Contains(errs, "-preserve-perms") {
		t.Errorf("t -preserve-perms (an x flag): exit %d, %q; want it refused", code, errs)
	}
	// unarc a -pPASSWORD encrypts.
	dir := t.TempDir()
	src := filepath.Join(dir, "f.txt")
	os.WriteFile(src, []byte("secret content"), 0o644)
	arch := filepath.Join(dir, "a.7z")
	if code, _, errs := runCLI("a", "-psecret", "-q", arch, src); code != 0 {
		t.Fatalf("a -psecret: exit %d: %s", code, errs)
	}
	if code, _, _ := runCLI("t", arch); code != 4 {
		t.Errorf("t without the password of an a -psecret archive: exit %d, want 4", code)
	}
	if code, _, errs := runCLI("t", arch, "-psecret"); code != 0 {
		t.Errorf("t -psecret: exit %d: %s", code, errs)
	}
	arch2 := filepath.Join(dir, "b.7z")
	if code, _, errs := runCLI("a", "-preserve-perms", "-q", arch2, src); code != 1 || !strings.Contains(errs, "-preserve-perms") {
		t.Errorf("a -preserve-perms: exit %d, %q; want it refused, not the password \"reserve-perms\"", code, errs)
	}
}

// TestOpenErrorsNameArchiveOnce: an error opening the archive is one
// line "unarc: ARCHIVE: message" naming the archive once, whether the
// library (OpenFile), the os package or the command named it.
func TestOpenErrorsNameArchiveOnce(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.zip")
	os.WriteFile(text, []byte("just some text, not an archive at all"), 0o644)
	whole, err := os.ReadFile(testdata(t, "7z/lzma2.7z"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.7z")
	os.WriteFile(cut, whole[:300], 0o644)
	hp := testdata(t, "rar/rar5_hp_solid.rar")
	tests := []struct {
		args []string
		path string
		want int
	}{
		{[]string{"t", text}, text, 2},
		{[]string{"l", cut}, cut, 2},
		{[]string{"x", "-o", dir, hp}, hp, 4},
		{[]string{"t", "-pwrong", hp}, hp, 4},
		{[]string{"l", "-max-entries", "2", testdata(t, "rar/rar5_solid.rar")}, testdata(t, "rar/rar5_solid.rar"), 7},
		{[]string{"t", dir}, dir, 2},
		{[]string{"t", filepath.Join(dir, "missing.zip")}, filepath.Join(dir, "missing.zip"), 1},
	}
	for _, tc := range tests {
		code, _, errs := runCLI(tc.args...)
		if code != tc.want {
			t.Errorf("%q: exit %d, want %d: %s", tc.args, code, tc.want, errs)
		}
		if !strings.HasPrefix(errs, "unarc: "+tc.path+": ") || strings.Count(errs, "\n") != 1 ||
			strings.Count(errs, tc.path) != 1 || strings.Count(errs, "unarc:") != 1 {
			t.Errorf("%q: stderr %q: want one line naming the archive once after \"unarc: \"", tc.args, errs)
		}
	}
}

// TestSummaryLine: t and x print one line on success saying how much
// they did and what was verified (on stdout, as 7zz and unrar do; on
// stderr when stdout carries -json or -digest output), nothing with -q
// and nothing when something failed.
func TestSummaryLine(t *testing.T) {
	z := makeZip(t, zent{name: "d/", mode: fs.ModeDir | 0o755}, zent{name: "d/a.txt", content: strings.Repeat("a", 2000)},
		zent{name: "b.txt", content: "bb"})
	code, out, errs := runCLI("t", z)
	if want := "OK: 3 entries, 2.0 KiB, 2 verified (CRC32), 1 without data (directories, links)\n"; code != 0 || out != want {
		t.Errorf("t: exit %d, stdout %q, want %q (stderr %q)", code, out, want, errs)
	}
	dest := t.TempDir()
	code, out, errs = runCLI("x", "-o", dest, z)
	if want := "Extracted 2 files (2.0 KiB) to " + dest + "; 2 verified (CRC32)\n"; code != 0 || out != want {
		t.Errorf("x: exit %d, stdout %q, want %q (stderr %q)", code, out, want, errs)
	}
	for _, args := range [][]string{{"t", "-q", z}, {"x", "-q", "-o", t.TempDir(), z}} {
		if code, out, errs := runCLI(args...); code != 0 || out != "" || errs != "" {
			t.Errorf("%q: exit %d, printed %q %q; want nothing", args, code, out, errs)
		}
	}
	code, out, errs = runCLI("t", "-json", z)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("t -json: stdout line %q is not JSON", l)
		}
	}
	if code != 0 || !strings.HasPrefix(errs, "OK: 3 entries") {
		t.Errorf("t -json: exit %d, stderr %q: want the summary there", code, errs)
	}
	if _, out, errs := runCLI("t", "-digest", "sha256", z); strings.Contains(out, "OK") || !strings.HasPrefix(errs, "OK: ") {
		t.Errorf("t -digest: stdout %q, stderr %q: the summary belongs on stderr", out, errs)
	}
	// What could not be verified is said, and what covered it.
	if _, out, _ := runCLI("t", noCRC7z(t, "plain.txt", "no checksum")); !strings.Contains(out, "OK: 1 entry, 11 B, 1 not verifiable (no checksum stored)") {
		t.Errorf("t without checksums: %q", out)
	}
	tgz := testdata(t, "tar/small.tar.gz")
	if _, out, _ := runCLI("t", tgz); !strings.Contains(out, "covered by the stream's gzip CRC32") {
		t.Errorf("t on a tar.gz: %q", out)
	}
	if _, out, _ := runCLI("x", "-o", t.TempDir(), tgz); !strings.Contains(out, "5 files") || !strings.Contains(out, "covered by the stream's gzip CRC32") {
		t.Errorf("x on a tar.gz: %q", out)
	}
	// No summary after a failure or an unmatched pattern.
	data, _ := os.ReadFile(z)
	flipped := filepath.Join(t.TempDir(), "flip.zip")
	data[bytes.Index(data, []byte("aaaa"))] ^= 1
	os.WriteFile(flipped, data, 0o644)
	for _, args := range [][]string{{"t", flipped}, {"x", "-o", t.TempDir(), flipped}, {"t", z, "nothing*"}} {
		if code, out, _ := runCLI(args...); code == 0 || out != "" {
			t.Errorf("%q: exit %d, stdout %q; want a failure and no summary", args, code, out)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 12_900_000: "12.3 MiB", 5 << 40: "5.0 TiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestListTable: l prints a header, one row per entry with "-" for a
// packed size it does not know (solid 7z, tarball entries), never -1,
// and a totals line; -q prints the rows alone, and -json is unchanged.
func TestListTable(t *testing.T) {
	z := makeZip(t, zent{name: "d/", mode: fs.ModeDir | 0o755}, zent{name: "d/a.txt", content: "aaaa"},
		zent{name: "b.txt", content: "bbbbbb"})
	code, out, errs := runCLI("l", z)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 5 {
		t.Fatalf("l: exit %d, %d lines, want 5:\n%s%s", code, len(lines), out, errs)
	}
	if f := strings.Fields(lines[0]); !slices.Equal(f, []string{"Mode", "Size", "Packed", "Modified", "Method", "Name"}) {
		t.Errorf("header %q", lines[0])
	}
	if f := strings.Fields(lines[4]); !slices.Equal(f, []string{"10", "10", "2", "files,", "1", "directory"}) {
		t.Errorf("totals %q, want size 10, packed 10, 2 files, 1 directory", lines[4])
	}
	// Columns line up: each row's size ends where the header's does.
	end := strings.Index(lines[0], "Size") + len("Size")
	for _, l := range lines[1:] {
		if len(l) < end || l[end-1] == ' ' || (len(l) > end && l[end] != ' ') {
			t.Errorf("row %q: size column does not end at %d like the header's", l, end)
		}
	}
	for _, file := range []string{"7z/lzma2.7z", "tar/small.tar.gz"} {
		code, out, errs := runCLI("l", testdata(t, file))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || strings.Contains(out, " -1 ") {
			t.Errorf("l %s: exit %d, prints -1:\n%s%s", file, code, out, errs)
		}
		if f := strings.Fields(lines[len(lines)-1]); len(f) < 2 || f[1] != "-" {
			t.Errorf("l %s: totals %q: the packed total is not known", file, lines[len(lines)-1])
		}
		if !strings.Contains(out, "            - ") {
			t.Errorf("l %s: no row shows an unknown packed size as -:\n%s", file, out)
		}
	}
	code, out, _ = runCLI("l", "-q", z)
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); code != 0 || len(lines) != 3 || strings.HasPrefix(out, "Mode") {
		t.Errorf("l -q: exit %d, want the 3 rows alone:\n%s", code, out)
	}
	code, out, _ = runCLI("l", "-json", testdata(t, "7z/lzma2.7z"))
	if code != 0 || !strings.Contains(out, `"name":"text.txt","type":"file","size":8979,"packed_size":-1,`) {
		t.Errorf("l -json changed:\n%s", out)
	}
}

// TestDirArgumentHint: x's last argument that selects nothing and looks
// like a destination (an existing directory, or a trailing slash) gets
// a hint about -o; exit status and other patterns are as before.
func TestDirArgumentHint(t *testing.T) {
	z := makeZip(t, zent{name: "a.txt", content: "a"})
	t.Chdir(t.TempDir())
	os.Mkdir("out", 0o755)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"x", z, "out"}, `no entry matches "out" (did you mean -o out?)`},
		{[]string{"x", z, "new/"}, `no entry matches "new/" (did you mean -o new/?)`},
		{[]string{"x", z, "out/", "-o", "elsewhere"}, ": out: no entry matches"},
		{[]string{"x", z, "out/", "a.txt"}, ": out: no entry matches"},
		{[]string{"x", z, "nothing.txt"}, ": nothing.txt: no entry matches"},
		{[]string{"t", z, "out/"}, ": out: no entry matches"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) || (strings.Contains(errs, "did you mean") != strings.Contains(tc.want, "did you mean")) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and %q", tc.args, code, errs, tc.want)
		}
		if got := tree("out"); len(got) != 0 {
			t.Errorf("%q: wrote into out/: %v", tc.args, got)
		}
	}
}

// TestInterruptedNamesArchive: an interruption is the archive's error,
// "unarc: ARCHIVE: interrupted", for t as for x, with no pseudo-entry.
func TestInterruptedNamesArchive(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range []string{"zip/infozip-deflate.zip", "tar/small.tar.gz", "7z/lzma2.7z"} {
		p := testdata(t, f)
		for _, args := range [][]string{{"t", p}, {"x", "-o", t.TempDir(), p}} {
			var out, errb bytes.Buffer
			c := &cli{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
			code := c.run(args)
			if want := "unarc: " + p + ": interrupted\n"; code != 1 || errb.String() != want || out.Len() != 0 {
				t.Errorf("%q interrupted: exit %d, stdout %q, stderr %q; want 1 and %q", args, code, out.String(), errb.String(), want)
			}
		}
	}
}

// TestAddExistingNamesOnce: a refused existing ARCHIVE of a is named
// once, as every error line names its archive.
func TestAddExistingNamesOnce(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "old.7z")
	os.WriteFile(arch, []byte("mine"), 0o644)
	code, _, errs := runCLI("a", arch, dir)
	if code != 1 || !strings.HasPrefix(errs, "unarc: "+arch+": ") || strings.Count(errs, arch) != 1 {
		t.Errorf("a over an existing archive: exit %d, stderr %q; want 1 naming it once", code, errs)
	}
	if b, _ := os.ReadFile(arch); string(b) != "mine" {
		t.Errorf("the existing archive was replaced")
	}
}
