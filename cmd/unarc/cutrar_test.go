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
