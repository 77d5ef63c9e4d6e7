package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// MixedXZ returns the path of mixed-0.bin compressed by `xz -6 -T1` (50
// MiB of half random, half text data in one block with a CRC64 check),
// made once in the benchmark cache. The xz package's BenchmarkDecode and
// bench/'s comparison with ulikunitz/xz decode the same file. It skips
// when xz is missing.
func MixedXZ(tb TB) string {
	tb.Helper()
	if _, err := exec.LookPath("xz"); err != nil {
		tb.Skip("xz not installed (../shared/tools/install-reference-tools.sh installs it)")
	}
	src := filepath.Join(MixedDir(tb), MixedName(0)) // before the lock: MixedDir takes it
	out := filepath.Join(CacheDir(tb), "xz-bench-mixed-0.xz")
	mixedOnce.Lock()
	defer mixedOnce.Unlock()
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	defer os.Remove(tmp)
	f, err := os.Create(tmp)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("xz", "-6", "-T1", "-c", src)
	cmd.Stdout, cmd.Stderr = f, os.Stderr
	err = cmd.Run()
	f.Close()
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, out); err != nil {
		tb.Fatal(err)
	}
	return out
}
