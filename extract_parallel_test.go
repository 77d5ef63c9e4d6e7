package unarc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/engine"
)

// The 20-entry archives of testdata/parallel (make.sh), with how many
// units each has: ZIP and non-solid RAR one per entry (a RAR hard link
// goes with its source), solid RAR one per run, 7z one per folder.
var parallelArchives = []struct {
	name  string
	units int
}{
	{"p20-7zz.zip", 23},
	{"p20-rar5.rar", 22},
	{"p20-rar5-solid.rar", 3},
	{"p20-rar5-s5.rar", 6},
	{"p20-rar4.rar", 23},
	{"p20-folders.7z", 23},
	{"p20-solid4.7z", 7},
}

func TestUnitsOfFormats(t *testing.T) {
	for _, c := range parallelArchives {
		a, err := OpenFile(filepath.Join("testdata/parallel", c.name))
		if err != nil {
			t.Fatal(err)
		}
		u := engine.View(a.a).(engine.Units).Units()
		ents := a.Entries()
		if len(u) != len(ents) {
			t.Fatalf("%s: %d units for %d entries", c.name, len(u), len(ents))
		}
		distinct := map[int]bool{}
		for i, e := range ents {
			distinct[u[i]] = true
			// An entry that starts a fresh stream is never in the unit
			// of the entry before it.
			if i > 0 && !e.Solid && e.Size > 0 && e.Link == LinkNone && u[i] == u[i-1] {
				t.Errorf("%s: %s does not continue a stream but shares its unit", c.name, e.Name)
			}
		}
		if len(distinct) != c.units {
			t.Errorf("%s: %d units, want %d (%v)", c.name, len(distinct), c.units, u)
		}
		a.Close()
	}
}

// event is one progress call, as a test compares them.
type event struct {
	name       string
	entry, tot int64
	done       bool
}

// tree reads what a destination holds: path -> kind, mode, content or
// link target, mtime.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		v := fmt.Sprintf("%v %d", st.Mode(), st.ModTime().Unix())
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v += " -> " + l
		case st.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		case st.IsDir():
			v = fmt.Sprintf("%v", st.Mode()) // directory times move as entries land
		}
		out[rel] = v
		return nil
	})
	return out
}

// run extracts name with opts (for Open), xopts (for Extract) and
// workers, returning the tree, the error text and the progress events.
func extractWith(t *testing.T, path string, dest string, workers int, prep func(dest string), opts []Option, xopts ...ExtractOption) (map[string]string, string, []event) {
	t.Helper()
	os.MkdirAll(dest, 0o755)
	if prep != nil {
		prep(dest)
	}
	var evs []event
	opts = append(slices.Clone(opts), WithWorkers(workers))
	xopts = append(xopts, WithProgress(func(p Progress) {
		evs = append(evs, event{p.Entry.Name, p.EntryWritten, p.TotalWritten, p.Done})
	}))
	a, err := OpenFile(path, opts...)
	if err != nil {
		return nil, "open: " + err.Error(), nil
	}
	defer a.Close()
	msg := ""
	if err := a.Extract(context.Background(), dest, xopts...); err != nil {
		msg = err.Error()
	}
	return tree(t, dest), msg, evs
}

// corrupt writes a copy of src with one byte flipped at each offset.
func corrupt(t *testing.T, src string, offs ...float64) string {
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range offs {
		b[int(f*float64(len(b)))] ^= 0x55
	}
	p := filepath.Join(t.TempDir(), filepath.Base(src))
	os.WriteFile(p, b, 0o644)
	return p
}

// TestParallelExtractMatchesSequential extracts every parallel test
// archive on 1 and on 8 workers — plain, damaged, over existing files
// under each overwrite policy, and under MaxTotalSize — and requires the
// same files, the same errors and the same progress calls.
func TestParallelExtractMatchesSequential(t *testing.T) {
	type variant struct {
		name  string
		path  func(src string) string
		prep  func(dest string)
		opts  []Option        // Open's
		xopts []ExtractOption // Extract's
	}
	existing := func(dest string) {
		old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		os.MkdirAll(filepath.Join(dest, "sub"), 0o755)
		for _, f := range []string{"f04.txt", "sub/f06.txt"} {
			os.WriteFile(filepath.Join(dest, f), []byte("mine"), 0o644)
			os.Chtimes(filepath.Join(dest, f), old, old)
		}
		os.Mkdir(filepath.Join(dest, "f07.txt"), 0o755)
	}
	variants := []variant{
		{name: "plain"},
		{name: "damaged", path: func(s string) string { return corrupt(t, s, 0.3, 0.55) }},
		{name: "exists-error", prep: existing},
		{name: "exists-skip", prep: existing, xopts: []ExtractOption{WithOverwrite(OverwriteSkip)}},
		{name: "exists-always", prep: existing, xopts: []ExtractOption{WithOverwrite(OverwriteAlways)}},
		{name: "exists-rename", prep: existing, xopts: []ExtractOption{WithOverwrite(OverwriteRename)}},
		{name: "total", opts: []Option{WithLimits(Limits{MaxTotalSize: 40 << 10})}},
		{name: "filter", xopts: []ExtractOption{WithFilter(func(e *Entry) bool { return !strings.Contains(e.Name, "f01") })}},
	}
	if testing.Short() {
		// The cases that differ most in what they go through.
		variants = slices.DeleteFunc(variants, func(v variant) bool {
			return !slices.Contains([]string{"plain", "damaged", "exists-rename", "total"}, v.name)
		})
	}
	for _, c := range parallelArchives {
		for _, v := range variants {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				src := filepath.Join("testdata/parallel", c.name)
				if v.path != nil {
					src = v.path(src)
				}
				base := t.TempDir()
				var asked [2][]string // the conflict callback's questions
				var trees [2]map[string]string
				var msgs [2]string
				var evs [2][]event
				for i, w := range []int{1, 8} {
					xopts := slices.Clone(v.xopts)
					if v.prep != nil && len(v.xopts) == 0 {
						xopts = append(xopts, WithConflictFunc(func(e *Entry, p string, _ fs.FileInfo) Overwrite {
							asked[i] = append(asked[i], p)
							if strings.Contains(p, "06") {
								return OverwriteAlways
							}
							return OverwriteError
						}))
					}
					trees[i], msgs[i], evs[i] = extractWith(t, src, filepath.Join(base, fmt.Sprint(w)), w, v.prep, v.opts, xopts...)
				}
				if msgs[0] != msgs[1] {
					t.Errorf("errors differ:\n1: %s\n8: %s", msgs[0], msgs[1])
				}
				if len(trees[0]) == 0 && msgs[0] == "" {
					t.Error("nothing extracted")
				}
				for p, v0 := range trees[0] {
					if v1, ok := trees[1][p]; !ok || v0 != v1 {
						t.Errorf("%s: sequential %.60q, parallel %.60q", p, v0, v1)
					}
				}
				for p := range trees[1] {
					if _, ok := trees[0][p]; !ok {
						t.Errorf("%s: only in the parallel extraction", p)
					}
					if strings.HasPrefix(filepath.Base(p), ".unarc-") {
						t.Errorf("%s: temporary file left", p)
					}
				}
				// The decoder's chunks may split an entry's bytes
				// differently (a decoder's window position depends on
				// what it decoded before): compare each entry's calls
				// with the intermediate ones of a run merged into the last.
				evs[0], evs[1] = mergeProgress(evs[0]), mergeProgress(evs[1])
				if !slices.Equal(evs[0], evs[1]) {
					t.Errorf("progress differs: %d calls sequential, %d parallel", len(evs[0]), len(evs[1]))
					for k := range min(len(evs[0]), len(evs[1])) {
						if evs[0][k] != evs[1][k] {
							t.Errorf("first difference at %d: %+v / %+v", k, evs[0][k], evs[1][k])
							break
						}
					}
				}
				if !slices.Equal(asked[0], asked[1]) {
					t.Errorf("conflict questions differ: %v / %v", asked[0], asked[1])
				}
			})
		}
	}
}

// mergeProgress drops every intermediate call followed by another
// intermediate call of the same entry.
func mergeProgress(evs []event) []event {
	var out []event
	for i, e := range evs {
		if !e.done && i+1 < len(evs) && !evs[i+1].done && evs[i+1].name == e.name {
			continue
		}
		out = append(out, e)
	}
	return out
}

// TestParallelTestMatchesSequential runs Archive.Verify on 1 and 8 workers
// over the plain and damaged archives: the same entries in the same
// order with the same errors.
func TestParallelTestMatchesSequential(t *testing.T) {
	for _, c := range parallelArchives {
		for _, damaged := range []bool{false, true} {
			src := filepath.Join("testdata/parallel", c.name)
			if damaged {
				src = corrupt(t, src, 0.3, 0.55)
			}
			var got [2][]string
			var bytesOut [2]int64
			for i, w := range []int{1, 8} {
				a, err := OpenFile(src, WithWorkers(w))
				if err != nil {
					got[i] = []string{"open: " + err.Error()}
					continue
				}
				var mu sync.Mutex
				err = a.VerifyFunc(context.Background(), func(r *VerifyResult) error {
					got[i] = append(got[i], fmt.Sprintf("%s %v %v", r.Entry.Name, r.Status, r.Err))
					return nil
				}, VerifyProgress(func(_ *Entry, n int) { mu.Lock(); bytesOut[i] += int64(n); mu.Unlock() }))
				if err != nil {
					t.Fatal(err)
				}
				a.Close()
			}
			if !slices.Equal(got[0], got[1]) {
				t.Errorf("%s damaged=%v:\n1: %v\n8: %v", c.name, damaged, got[0], got[1])
			}
			if !damaged && bytesOut[0] != bytesOut[1] {
				t.Errorf("%s: %d bytes decoded on 1 worker, %d on 8", c.name, bytesOut[0], bytesOut[1])
			}
			if !damaged && len(got[0]) < 20 {
				t.Errorf("%s: only %d entries tested", c.name, len(got[0]))
			}
		}
	}
}

// TestParallelExtractCancelAndClose cancels an 8-worker extraction, and
// closes the archive under another, at several points: no panic, no data
// race (under -race), no temporary file left, and the error says why.
func TestParallelExtractCancelAndClose(t *testing.T) {
	for _, c := range parallelArchives {
		afters := []int{1, 5, 20}
		if testing.Short() {
			afters = afters[1:2]
		}
		for _, after := range afters {
			// Cancel from the progress callback after some calls.
			dest := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			calls := 0
			a, err := OpenFile(filepath.Join("testdata/parallel", c.name), WithWorkers(8))
			if err != nil {
				t.Fatal(err)
			}
			err = a.Extract(ctx, dest, WithProgress(func(Progress) {
				if calls++; calls == after {
					cancel()
				}
			}))
			cancel()
			if calls >= after && !errors.Is(err, context.Canceled) {
				t.Errorf("%s: cancelled after %d calls: %v", c.name, after, err)
			}
			a.Close()
			noTemps(t, dest)

			// Close the archive while its entries decode.
			dest = t.TempDir()
			a, err = OpenFile(filepath.Join("testdata/parallel", c.name), WithWorkers(8))
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			a2 := a
			go func() {
				time.Sleep(time.Duration(after) * 50 * time.Microsecond)
				once.Do(func() { a2.Close() })
			}()
			a.Extract(context.Background(), dest) // entries after the Close fail; that is all
			once.Do(func() { a.Close() })
			noTemps(t, dest)
		}
	}
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".unarc-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestParallelHardLinkWaits puts a hard link right after its target in a
// fake archive whose target decodes slowly on another worker: the link
// must still be made (to the finished file), as in order.
func TestParallelHardLinkWaits(t *testing.T) {
	big := bytes.Repeat([]byte("slow target "), 200000)
	list := []fakeEntry{
		{e: Entry{Name: "a/target.bin", Mode: 0o644}, content: big},
		hardlink("b/link.bin", "a/target.bin"),
		file("c.txt", "c"),
	}
	for _, w := range []int{1, 8} {
		a := newFakeOpts([]Option{WithWorkers(w)}, list...)
		dest := t.TempDir()
		if err := a.Extract(context.Background(), dest); err != nil {
			t.Fatalf("workers %d: %v", w, err)
		}
		b, err := os.ReadFile(filepath.Join(dest, "b/link.bin"))
		if err != nil || !bytes.Equal(b, big) {
			t.Fatalf("workers %d: link content wrong (%v)", w, err)
		}
		s1, _ := os.Stat(filepath.Join(dest, "a/target.bin"))
		s2, _ := os.Stat(filepath.Join(dest, "b/link.bin"))
		if !os.SameFile(s1, s2) {
			t.Errorf("workers %d: not a hard link", w)
		}
	}
}
