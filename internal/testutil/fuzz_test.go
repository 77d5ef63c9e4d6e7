package testutil

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestFuzzBoundWatchdog runs each case in a child process, since the
// watchdog's job is to crash the process: a busy input and a blocked
// input both crash it with the watchdog's message; a quick one does not.
func TestFuzzBoundWatchdog(t *testing.T) {
	if mode := os.Getenv("UNARC_WATCHDOG_CASE"); mode != "" {
		done := FuzzBound(t, 200*time.Millisecond, 0)
		switch mode {
		case "busy":
			for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
			}
		case "blocked":
			time.Sleep(20 * time.Second)
		case "quick":
			time.Sleep(10 * time.Millisecond)
		}
		done()
		return
	}
	if RaceEnabled {
		t.Skip("the bound is ten times longer under -race")
	}
	cases := map[string]bool{"busy": true, "blocked": true, "quick": false}
	for mode, crash := range cases {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestFuzzBoundWatchdog$")
			cmd.Env = append(os.Environ(), "UNARC_WATCHDOG_CASE="+mode)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			fired := strings.Contains(string(out), "fuzz input ran longer than")
			if fired != crash || (err != nil) != crash {
				t.Fatalf("crash %v (err %v) after %v, want %v:\n%s", fired, err, took, crash, out)
			}
			if crash && took > 10*time.Second {
				t.Errorf("watchdog took %v", took)
			}
		})
	}
}
