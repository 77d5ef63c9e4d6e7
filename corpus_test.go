package unarc_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/corpus-status.txt from this run")

// Corpus statuses, worst first. The golden file testdata/corpus-status.txt
// records each archive's status; the test fails when an archive does worse
// than recorded, and -update-corpus records improvements.
const (
	stFail        = "fail"        // wrong content, wrong error class, or a crash/hang
	stUnsupported = "unsupported" // we refuse with ErrUnsupported/ErrPasswordRequired what the manifest expects to extract
	stOK          = "ok"          // matches the manifest (entries and sha256, or the expected error class)
)

func rank(s string) int {
	switch s {
	case stOK:
		return 2
	case stUnsupported:
		return 1
	}
	return 0
}

// errorClassMatches reports whether err is of the manifest's error class.
func errorClassMatches(class string, err error) bool {
	switch class {
	case "corrupt":
		return errors.Is(err, unarc.ErrCorrupt) || errors.Is(err, unarc.ErrFormat) ||
			errors.Is(err, unarc.ErrTruncated) || errors.Is(err, unarc.ErrChecksum)
	case "wrong_password":
		// The reference tool ran without a password where the manifest
		// has none; "password required" is the same class (exit 4).
		return errors.Is(err, unarc.ErrPassword) || errors.Is(err, unarc.ErrPasswordRequired)
	case "unsupported":
		return errors.Is(err, unarc.ErrUnsupported)
	}
	return false
}

func isUnsupported(err error) bool {
	return errors.Is(err, unarc.ErrUnsupported) || errors.Is(err, unarc.ErrPasswordRequired)
}

func normName(s string) string {
	s = strings.TrimPrefix(s, "./")
	return strings.TrimSuffix(s, "/")
}

// runCase checks one archive against its manifest rows and returns its
// status and, when not ok, why.
func runCase(dir string, c *testutil.Case) (string, string) {
	pw := map[string]string{}
	first := ""
	for _, r := range c.Rows {
		if r.Password != "" {
			pw[r.Entry] = r.Password
			if first == "" {
				first = r.Password
			}
		}
	}
	// MANIFEST.tsv records legacy (non-UTF-8) ZIP names as their raw bytes.
	opts := []unarc.Option{unarc.WithNameDecoder(func(b []byte) string { return string(b) })}
	if first != "" {
		opts = append(opts, unarc.WithPasswordFunc(func(e *unarc.Entry) (string, error) {
			if e != nil {
				if p, ok := pw[normName(e.Name)]; ok {
					return p, nil
				}
			}
			return first, nil
		}))
	}
	a, err := unarc.OpenFile(filepath.Join(dir, c.Archive), opts...)
	if c.Error != "" && testutil.BeyondMethods(c.Archive) {
		// 7zz lacks the coder; every entry must read, CRC-checked.
		if err == nil {
			err = readAllVerified(a)
			a.Close()
		}
		if err != nil {
			if isUnsupported(err) {
				return stUnsupported, err.Error()
			}
			return stFail, err.Error()
		}
		return stOK, ""
	}
	if c.Error != "" {
		if err == nil {
			err = readAll(a)
			if err == nil {
				// An archive-level warning matching a sentinel is the
				// error the command-line tool exits with, as 7zz exits 2
				// for a "Headers Error" on entries it still extracts.
				for _, w := range a.Warnings() {
					if errorClassMatches(c.Error, w) {
						err = w
						break
					}
				}
			}
			a.Close()
		}
		if err == nil {
			return stFail, "opened and read without error; want " + c.Error
		}
		if errorClassMatches(c.Error, err) {
			return stOK, ""
		}
		if isUnsupported(err) {
			return stUnsupported, err.Error()
		}
		return stFail, fmt.Sprintf("error %v; want class %s", err, c.Error)
	}
	if err != nil {
		if isUnsupported(err) {
			return stUnsupported, err.Error()
		}
		return stFail, "open: " + err.Error()
	}
	defer a.Close()
	byName := map[string]*unarc.Entry{}
	implied := map[string]bool{}
	for _, e := range a.Entries() {
		n := normName(e.Name)
		byName[n] = e
		for d := filepath.Dir(n); d != "." && d != "/"; d = filepath.Dir(d) {
			implied[d] = true
		}
	}
	if c.Empty {
		for _, e := range a.Entries() {
			if !e.IsDir() {
				return stFail, "want no entries, found " + e.Name
			}
		}
		return stOK, ""
	}
	status, why := stOK, ""
	worse := func(s, w string) {
		if rank(s) < rank(status) {
			status, why = s, w
		}
	}
	for _, r := range c.Rows {
		e := byName[r.Entry]
		switch r.Type {
		case "dir-implicit":
			continue
		case "dir":
			if (e == nil || !e.IsDir()) && !implied[r.Entry] {
				worse(stFail, "missing dir "+r.Entry)
			}
			continue
		}
		if e == nil {
			worse(stFail, "missing entry "+r.Entry)
			continue
		}
		switch r.Type {
		case "symlink":
			target := e.LinkTarget
			if e.Link == unarc.LinkSymlink && target == "" {
				// 7z keeps targets as content, read only when needed.
				rc, err := a.OpenEntry(e)
				if err == nil {
					b, _ := io.ReadAll(rc)
					rc.Close()
					target = string(b)
				}
			}
			if e.Link != unarc.LinkSymlink || target != r.Target {
				worse(stFail, fmt.Sprintf("%s: link %v -> %q, want symlink -> %q", r.Entry, e.Link, target, r.Target))
			}
			continue
		case "hardlink":
			if e.Link == unarc.LinkHardlink {
				if normName(e.LinkTarget) != r.Target {
					worse(stFail, fmt.Sprintf("%s: hard link to %q, want %q", r.Entry, e.LinkTarget, r.Target))
				}
				continue
			}
		}
		sum, n, err := hashEntry(a, e)
		switch {
		case err != nil && isUnsupported(err):
			worse(stUnsupported, r.Entry+": "+err.Error())
		case err != nil:
			worse(stFail, r.Entry+": "+err.Error())
		case n != r.Size || !bytes.Equal(sum, r.SHA256):
			worse(stFail, fmt.Sprintf("%s: %d bytes sha256 %x, want %d bytes %x", r.Entry, n, sum, r.Size, r.SHA256))
		}
	}
	return status, why
}

// hashEntry reads e, once more after a wrong password found only at the
// data's end (RAR 2.9): the Archive then forgets the cached answer and
// asks again for this entry, as a user would be.
func hashEntry(a *unarc.Archive, e *unarc.Entry) ([]byte, int64, error) {
	sum, n, err := hashEntryOnce(a, e)
	if errors.Is(err, unarc.ErrPassword) {
		sum, n, err = hashEntryOnce(a, e)
	}
	return sum, n, err
}

func hashEntryOnce(a *unarc.Archive, e *unarc.Entry) ([]byte, int64, error) {
	rc, err := a.OpenEntry(e)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	return h.Sum(nil), n, err
}

func readAll(a *unarc.Archive) error {
	for _, e := range a.Entries() {
		if e.IsDir() || e.Link == unarc.LinkHardlink || (e.Link == unarc.LinkSymlink && e.LinkTarget != "") {
			continue
		}
		if _, _, err := hashEntry(a, e); err != nil {
			return err
		}
	}
	return nil
}

// readAllVerified reads every entry of a with data, each of which must
// carry a checksum the reader verifies.
func readAllVerified(a *unarc.Archive) error {
	for _, e := range a.Entries() {
		if e.IsDir() || e.Link != unarc.LinkNone || e.Size == 0 {
			continue
		}
		if !e.Verifiable() {
			return fmt.Errorf("%s: no checksum stored", e.Name)
		}
		if _, _, err := hashEntry(a, e); err != nil {
			return err
		}
	}
	return nil
}

const goldenPath = "testdata/corpus-status.txt"

func readGolden(t *testing.T) map[string]string {
	g, err := testutil.ReadTSV(goldenPath)
	if err != nil {
		return map[string]string{}
	}
	for k, v := range g {
		g[k], _, _ = strings.Cut(v, "\t")
	}
	return g
}

// TestCorpus runs every archive of ../shared/corpus/MANIFEST.tsv through
// the public API and compares with the reference tools' extraction.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	dir := testutil.CorpusDir(t)
	cases := testutil.Beyond7zz(testutil.Manifest(t, dir)) // archives 7zz cannot decode, judged by the same files elsewhere
	golden := readGolden(t)
	type result struct{ archive, status, why string }
	var results []result
	counts := map[string]map[string]int{}
	for _, c := range cases {
		t.Run(c.Archive, func(t *testing.T) {
			done := make(chan result, 1)
			go func() {
				defer func() {
					if p := recover(); p != nil {
						done <- result{c.Archive, stFail, fmt.Sprintf("panic: %v", p)}
					}
				}()
				st, why := runCase(dir, c)
				done <- result{c.Archive, st, why}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(2 * time.Minute):
				r = result{c.Archive, stFail, "timed out (hang?)"}
			}
			results = append(results, r)
			kind := strings.SplitN(c.Archive, "/", 3)
			group := kind[0]
			if group == "own" && len(kind) > 1 {
				group = kind[1]
			}
			if counts[group] == nil {
				counts[group] = map[string]int{}
			}
			counts[group][r.status]++
			want, known := golden[c.Archive]
			if r.status == stFail && (!known || want != stFail) {
				t.Errorf("%s: %s", r.status, r.why)
			} else if known && rank(r.status) < rank(want) {
				t.Errorf("regressed from %s to %s: %s", want, r.status, r.why)
			} else if r.status != stOK {
				t.Logf("%s (recorded: %s): %s", r.status, want, r.why)
			}
		})
	}
	groups := make([]string, 0, len(counts))
	for g := range counts {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		m := counts[g]
		t.Logf("corpus %-4s ok %3d  unsupported %3d  fail %3d", g, m[stOK], m[stUnsupported], m[stFail])
	}
	if *updateCorpus {
		var b strings.Builder
		b.WriteString("# Conformance status of each ../shared/corpus archive (TestCorpus; regenerate with\n")
		b.WriteString("# go test -run TestCorpus -update-corpus). A status may only improve: ok > unsupported > fail.\n")
		for _, r := range results {
			fmt.Fprintf(&b, "%s\t%s", r.archive, r.status)
			if r.status != stOK {
				fmt.Fprintf(&b, "\t%s", strings.ReplaceAll(r.why, "\n", " "))
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(goldenPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
