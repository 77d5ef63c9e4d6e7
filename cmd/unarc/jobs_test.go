package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobsSameOutput runs t and x with -j 1 and -j 8 on the parallel test
// archives, intact and damaged: the same exit status, the same messages
// in the same order, the same files.
func TestJobsSameOutput(t *testing.T) {
	names := []string{"p20-7zz.zip", "p20-rar5.rar", "p20-rar5-s5.rar", "p20-folders.7z", "p20-solid4.7z"}
	for _, n := range names {
		src := testdata(t, filepath.Join("parallel", n))
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)*3/10] ^= 0x55
		b[len(b)*55/100] ^= 0x55
		bad := filepath.Join(t.TempDir(), n)
		os.WriteFile(bad, b, 0o644)
		for _, p := range []string{src, bad} {
			var codes [2]int
			var errs [2]string
			var trees [2][]string
			for i, j := range []string{"1", "8"} {
				code, _, e := runCLI("t", "-j", j, p)
				dest := t.TempDir()
				xcode, _, xe := runCLI("x", "-j", j, "-o", dest, p)
				codes[i], errs[i], trees[i] = code*100+xcode, e+"\n--x--\n"+xe, tree(dest)
			}
			if codes[0] != codes[1] || errs[0] != errs[1] {
				t.Errorf("%s: -j 1 and -j 8 differ:\n%d %s\n%d %s", p, codes[0], errs[0], codes[1], errs[1])
			}
			if strings.Join(trees[0], "\n") != strings.Join(trees[1], "\n") {
				t.Errorf("%s: files differ:\n%v\n%v", p, trees[0], trees[1])
			}
			t.Logf("%s: exit t*100+x = %d", filepath.Base(filepath.Dir(p))+"/"+n, codes[0])
			if p == src && codes[0] != 0 {
				t.Errorf("%s: exit %d: %s", p, codes[0], errs[0])
			}
		}
	}
	if code, _, e := runCLI("t", "-j", "-2", testdata(t, "parallel/p20-7zz.zip")); code != 1 || !strings.Contains(e, "-j") {
		t.Errorf("-j -2: exit %d, %q", code, e)
	}
}
