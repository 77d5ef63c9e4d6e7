package testutil

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// SltProps maps each path `7zz l -slt` lists in the archive at path to
// its size and attributes.
func SltProps(t testing.TB, path string) map[string]string {
	t.Helper()
	out, err := exec.Command("7zz", "l", "-slt", path).CombinedOutput()
	if err != nil {
		t.Fatalf("7zz l: %v\n%s", err, out)
	}
	_, out, _ = bytes.Cut(out, []byte("----------\n"))
	props := map[string]string{}
	var name string
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Path = "); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(line, "Size = "); ok {
			props[name] += "size " + v + " "
		}
		if v, ok := strings.CutPrefix(line, "Attributes = "); ok {
			props[name] += v
		}
	}
	return props
}

// SameAs7zz checks that ours, a 7z archive of dir/src, passes `7zz t`
// and stores what `7zz a -snl` stores from dir: `7zz l -slt` shows the
// same paths (least of them at the least), sizes and attributes.
func SameAs7zz(t testing.TB, dir, ours string, least int) {
	t.Helper()
	if out, err := exec.Command("7zz", "t", "-bd", ours).CombinedOutput(); err != nil {
		t.Fatalf("7zz t: %v\n%s", err, out)
	}
	ref := filepath.Join(dir, "ref.7z")
	cmd := exec.Command("7zz", "a", "-bd", "-snl", ref, "src")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz a: %v\n%s", err, out)
	}
	want, got := SltProps(t, ref), SltProps(t, ours)
	t.Logf("7zz: %q", want)
	if len(want) < least {
		t.Fatalf("7zz lists %q", want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%q: %q, 7zz %q", name, got[name], w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%q: not in 7zz's archive", name)
		}
	}
}
