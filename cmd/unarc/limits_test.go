package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestHelpLimitsMatchSafeLimits: every limit flag is in the usage text,
// and the default it states is the value the flag starts from
// (SafeLimits), so the help cannot drift from the code (it once said
// 256M for -max-header-memory, 64M for -max-kdf, and left out
// -ratio-floor).
func TestHelpLimitsMatchSafeLimits(t *testing.T) {
	fl := flag.NewFlagSet("x", flag.ContinueOnError)
	var l unarc.Limits
	var none, noSpace bool
	limitFlags(fl, &l, &none, &noSpace)
	fl.VisitAll(func(f *flag.Flag) {
		if !regexp.MustCompile(`\n  -` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(usage) {
			t.Errorf("-%s is not in the usage text", f.Name)
		}
	})
	safe := reflect.ValueOf(unarc.SafeLimits)
	for _, f := range limitTable {
		field := safe.FieldByName(f.field)
		if !field.IsValid() {
			t.Errorf("-%s: Limits has no field %s", f.name, f.field)
			continue
		}
		// The flag's paragraph runs to the next flag line.
		re := regexp.MustCompile(`\n  -` + regexp.QuoteMeta(f.name) + ` ` + f.arg + `((?:.|\n)*?)(?:\n  -|\n  SIZE)`)
		m := re.FindStringSubmatch(usage)
		if m == nil {
			t.Errorf("-%s %s: no usage paragraph", f.name, f.arg)
			continue
		}
		d := regexp.MustCompile(`default (\S+?)(?:,|\s|$)`).FindStringSubmatch(m[1])
		if d == nil {
			t.Errorf("-%s: usage states no default: %q", f.name, m[1])
			continue
		}
		var got unarc.Limits
		if err := f.value(&got).Set(d[1]); err != nil {
			t.Errorf("-%s: stated default %q does not parse: %v", f.name, d[1], err)
			continue
		}
		if g := reflect.ValueOf(got).FieldByName(f.field); !g.Equal(field) {
			t.Errorf("-%s: usage says default %s (%v), SafeLimits.%s is %v", f.name, d[1], g, f.field, field)
		}
		if v := reflect.ValueOf(l).FieldByName(f.field); !v.Equal(field) {
			t.Errorf("-%s starts at %v, SafeLimits.%s is %v", f.name, v, f.field, field)
		}
	}
}

// runStdin runs the command in-process with stdin a stream (not a file).
func runStdin(stdin []byte, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	c := &cli{ctx: context.Background(), stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb}
	return c.run(args), out.String(), errb.String()
}

func bombFile(t *testing.T, name string) string {
	t.Helper()
	return testdata(t, filepath.Join("bombs", name))
}

// TestCLIBombs: under the default flags each class of bomb exits 7 with
// the flag that lifts it named, within seconds and before writing:
// entries whose declared total passes -max-total (refused before
// decoding), entries that do not fit the destination's free space, and
// undeclared output (a compressed tar stream, a data-descriptor ZIP from
// a pipe) past the ratio floor.
func TestCLIBombs(t *testing.T) {
	zeros := strings.Repeat("\x00", 4<<20)
	three := makeZip(t, zent{name: "a", content: zeros, method: 8}, zent{name: "b", content: zeros, method: 8}, zent{name: "c", content: zeros, method: 8})
	for _, cmd := range []string{"t", "x"} {
		dest := t.TempDir()
		code, _, errs := runCLI(cmd, three, "-o", dest, "-max-total", "10M")
		if cmd == "t" {
			code, _, errs = runCLI(cmd, three, "-max-total", "10M")
		}
		if code != 7 || !strings.Contains(errs, "12582912") || !strings.Contains(errs, "lift with -max-total") {
			t.Errorf("%s: declared total past -max-total: exit %d: %s", cmd, code, errs)
		}
		if got := tree(dest); len(got) != 0 {
			t.Errorf("%s: refused extraction wrote %v", cmd, got)
		}
	}

	// A Zip64 entry declaring 1 PiB fits no file system (its CRC does not
	// matter: the data ends long before).
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "huge", Method: 8, Packed: testutil.DeflateZeros(1 << 20), CRC: 0, Size: 1 << 50, Zip64: true})
	huge := filepath.Join(t.TempDir(), "huge.zip")
	if err := os.WriteFile(huge, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	code, _, errs := runCLI("x", huge, "-o", dest, "-max-total", "unlimited", "-max-entry-size", "unlimited")
	if code != 7 || !strings.Contains(errs, "bytes free") || !strings.Contains(errs, "-no-space-check") {
		t.Errorf("x past the free space: exit %d: %s", code, errs)
	}
	if got := tree(dest); len(got) != 0 {
		t.Errorf("refused extraction wrote %v", got)
	}
	// Without the check it is written until its data ends (truncated).
	code, _, errs = runCLI("x", huge, "-o", dest, "-max-total", "unlimited", "-max-entry-size", "unlimited", "-no-space-check")
	if code != 2 {
		t.Errorf("x -no-space-check: exit %d, want 2 (truncated): %s", code, errs)
	}
	// Under the default flags the declared size passes -max-total first.
	if code, _, errs := runCLI("x", huge, "-o", t.TempDir()); code != 7 || !strings.Contains(errs, "-max-total") {
		t.Errorf("x under the defaults: exit %d: %s", code, errs)
	}

	// Undeclared output: each stream is 1.5 GiB of zeros in ~1.2 KB.
	for _, name := range []string{"zeros.tar.bz2", "dd-zeros.zip"} {
		data, err := os.ReadFile(bombFile(t, name))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		code, _, errs := runStdin(data, "t", "-")
		if code != 7 || !strings.Contains(errs, "MaxRatio (1000); lift with -max-ratio") {
			t.Errorf("%s: t -: exit %d: %s", name, code, errs)
		}
		dest := t.TempDir()
		code, _, errs = runStdin(data, "x", "-", "-o", dest)
		if code != 7 || !strings.Contains(errs, "lift with -max-ratio") {
			t.Errorf("%s: x -: exit %d: %s", name, code, errs)
		}
		if got := tree(dest); len(got) != 0 {
			t.Errorf("%s: x - left %v", name, got)
		}
		if d := time.Since(start); d > timeBudget(40*time.Second) {
			t.Errorf("%s: t and x took %v", name, d)
		}
	}
}

// timeBudget widens a wall-clock budget under the race detector.
func timeBudget(d time.Duration) time.Duration {
	if testutil.RaceEnabled {
		return 10 * d
	}
	return d
}
