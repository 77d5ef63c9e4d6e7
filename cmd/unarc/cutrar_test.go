package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCutEndHeaderOnce: a RAR cut inside its end header exits 2 for t
// and x, with the entries still extracted, and the cut is reported on
// one line, not once as the error and again as a warning.
func TestCutEndHeaderOnce(t *testing.T) {
	b, err := os.ReadFile(testdata(t, "rar/rar5_m3.rar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.rar")
	if err := os.WriteFile(cut, b[:len(b)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"t", cut}, {"x", "-o", filepath.Join(dir, "out"), cut}} {
		code, _, stderr := runCLI(args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2; stderr:\n%s", args[0], code, stderr)
		}
		if n := strings.Count(stderr, "truncated"); n != 1 {
			t.Errorf("%s: the cut is reported %d times, want once:\n%s", args[0], n, stderr)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "out")); err != nil || len(ents) == 0 {
		t.Errorf("x of a RAR cut in its end header extracted nothing (%v)", err)
	}
}

// TestMissingEndBlock: a RAR that ends at a header boundary without its
// end-of-archive record (rar -en leaves it out; unrar says "All OK")
// exits 0 with a warning; with encrypted headers, where unrar reports
// "Unexpected end of archive", it still exits 2.
func TestMissingEndBlock(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, pw string
		end      int // bytes of the end-of-archive record
		want     int
	}{
		{"rar/rar5_m3.rar", "", 8, 0},
		{"rar/rar4_m3.rar", "", 7, 0},
		{"rar/rar5_hp_stored.rar", "test", 0, 2}, // 0: cut at the last header boundary found below
	} {
		b, err := os.ReadFile(testdata(t, c.name))
		if err != nil {
			t.Fatal(err)
		}
		n := len(b) - c.end
		if c.end == 0 {
			n = 15982 // a header boundary before the end (TestReaderShortReads found it)
		}
		p := filepath.Join(dir, filepath.Base(c.name))
		if err := os.WriteFile(p, b[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"t", p}
		if c.pw != "" {
			args = []string{"t", "-p", c.pw, p}
		}
		code, _, stderr := runCLI(args...)
		if code != c.want {
			t.Errorf("%s without its end record: exit %d, want %d\n%s", c.name, code, c.want, stderr)
		}
		if !strings.Contains(stderr, "end-of-archive") {
			t.Errorf("%s: the missing end record is not reported:\n%s", c.name, stderr)
		}
	}
}
