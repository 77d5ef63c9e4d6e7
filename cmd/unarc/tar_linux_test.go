package main

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestTestKeepsNoResults: t streams Verify's results (VerifyFunc), so a
// tarball of 262,144 empty entries tests in little memory and under a
// header-memory limit that holds a few thousand (issue 30: the results
// and their headers were all kept, 428-938 MiB; 256 MiB of RSS here, 38 MiB now).
func TestTestKeepsNoResults(t *testing.T) {
	p := testdata(t, "tar/headers.tar.xz")
	for _, stdin := range []bool{false, true} {
		cmd := exec.Command(binary(t), "t", "-max-ratio", "100000", "-max-header-memory", "4M", p)
		if stdin {
			cmd = exec.Command("sh", "-c", `"$0" t -max-ratio 100000 -max-header-memory 4M - < "$1"`, binary(t), p)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("unarc t %s (stdin %v): %v\n%s", p, stdin, err, out)
		}
		// sh waits for unarc: its children's peak is in the rusage.
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 96<<10 { // KiB
			t.Errorf("unarc t %s (stdin %v): peak RSS %d MiB", p, stdin, ru.Maxrss>>10)
		}
	}
}
