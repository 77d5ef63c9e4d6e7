package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatal(args ...any)         { r.failed = fmt.Sprint(args...) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...) }

// TestGlobFailsOnNothing: a listing that matches nothing fails the test
// rather than letting a loop over it pass.
func TestGlobFailsOnNothing(t *testing.T) {
	r := &recorder{TB: t}
	if m := Glob(r, filepath.Join(t.TempDir(), "*.zip")); len(m) != 0 || r.failed == "" {
		t.Fatalf("Glob of an empty folder: %q, failure %q", m, r.failed)
	}
	r = &recorder{TB: t}
	if m := Glob(r, "*.go"); len(m) == 0 || r.failed != "" {
		t.Fatalf("Glob of this package: %q, failure %q", m, r.failed)
	}
}

// TestManifestFailsWhenEmpty: a MANIFEST.tsv with no archive rows fails.
func TestManifestFailsWhenEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST.tsv"), []byte("# archive\tpassword\tentry\ttype\tsize\tsha256\ttarget\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	if cases := Manifest(r, dir); len(cases) != 0 || r.failed == "" {
		t.Fatalf("empty manifest: %d cases, failure %q", len(cases), r.failed)
	}
	row := "a.zip\t-\tx.txt\tfile\t1\t-\t-\n"
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST.tsv"), []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	r = &recorder{TB: t}
	if cases := Manifest(r, dir); len(cases) != 1 || r.failed != "" {
		t.Fatalf("one-row manifest: %d cases, failure %q", len(cases), r.failed)
	}
}

// TestModuleRootSkipsNestedModules: from inside bench/ (a module of its
// own) ModuleRoot still names the repository root.
func TestModuleRootSkipsNestedModules(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "go.mod"), "module github.com/go-unarc/unarc\n\ngo 1.26.0\n")
	write(filepath.Join(root, "bench", "go.mod"), "// peers\nmodule github.com/go-unarc/unarc/bench\n")
	sub := filepath.Join(root, "bench", "x")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	got, _ := filepath.EvalSymlinks(ModuleRoot())
	want, _ := filepath.EvalSymlinks(root)
	if got != want {
		t.Fatalf("ModuleRoot from %s = %s, want %s", sub, got, want)
	}
}
