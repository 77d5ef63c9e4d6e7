package unpack50

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// entryResult is what decoding one entry gave.
type entryResult struct {
	out []byte
	err error
}

func errClass(err error) string {
	for _, s := range []error{errs.ErrCorrupt, errs.ErrTruncated, errs.ErrUnsupported, errs.ErrLimit} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if err == nil {
		return "ok"
	}
	return "other: " + err.Error()
}

// decodeWith decodes the compressed entries of ents with one decoder on
// workers goroutines; readSize > 0 reads through Read in such pieces.
func decodeWith(ents []*testEntry, workers, readSize int, cut func(e *testEntry) []byte) []entryResult {
	d := NewDecoder()
	d.SetWorkers(workers)
	defer d.Close()
	var res []entryResult
	for _, e := range ents {
		if e.method == 0 || e.dir || e.encrypted || e.split || e.redirect {
			continue
		}
		packed := e.packed
		if cut != nil {
			packed = cut(e)
		}
		if err := d.ResetVersion(bytes.NewReader(packed), e.version, e.dict, e.size, e.solid); err != nil {
			res = append(res, entryResult{err: err})
			continue
		}
		var buf bytes.Buffer
		var err error
		if readSize > 0 {
			p := make([]byte, readSize)
			for err == nil {
				var n int
				n, err = d.Read(p)
				buf.Write(p[:n])
			}
			if err == io.EOF {
				err = nil
			}
		} else {
			_, err = d.WriteTo(&buf)
		}
		res = append(res, entryResult{buf.Bytes(), err})
	}
	return res
}

func sameResults(t *testing.T, what string, want, got []entryResult) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d entries sequential, %d pipelined", what, len(want), len(got))
	}
	for i := range want {
		if !bytes.Equal(want[i].out, got[i].out) {
			t.Fatalf("%s: entry %d: sequential %d bytes, pipelined %d bytes (first difference at %d)", what, i,
				len(want[i].out), len(got[i].out), firstDiff(want[i].out, got[i].out))
		}
		if errClass(want[i].err) != errClass(got[i].err) {
			t.Fatalf("%s: entry %d: sequential error %v, pipelined %v", what, i, want[i].err, got[i].err)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// rar5Archives lists the RAR5 archives of the repository's testdata and
// of the shared corpus (when present).
func rar5Archives(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	root := testutil.ModuleRoot()
	add := func(path string) {
		if !strings.HasSuffix(path, ".rar") || strings.Contains(path, ".part") {
			return
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data[:min(len(data), 1<<20)], []byte("Rar!\x1a\x07\x01\x00")) {
			return
		}
		if ents, err := parseRAR5(data); err != nil || len(ents) == 0 {
			return
		}
		out[path] = data
	}
	filepath.WalkDir(filepath.Join(root, "testdata"), func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			add(p)
		}
		return nil
	})
	if dir := filepath.Join(root, "..", "shared", "corpus"); !testing.Short() {
		if _, err := os.Stat(dir); err == nil {
			filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
				if err == nil && !de.IsDir() {
					add(p)
				}
				return nil
			})
		}
	}
	return out
}

// TestPipelineMatchesSequential: every RAR5 archive in the repository
// (and the corpus) decodes to the same bytes and errors on 2 and 3
// workers as on one, through WriteTo and through small Reads.
func TestPipelineMatchesSequential(t *testing.T) {
	archives := rar5Archives(t)
	if len(archives) < 10 {
		t.Fatalf("only %d RAR5 archives found", len(archives))
	}
	before := pipelinedEntries.Load()
	for path, data := range archives {
		ents, _ := parseRAR5(data)
		want := decodeWith(ents, 1, 0, nil)
		for _, w := range []int{2, 3} {
			sameResults(t, fmt.Sprintf("%s on %d workers", path, w), want, decodeWith(ents, w, 0, nil))
		}
		sameResults(t, path+" Read(1000)", want, decodeWith(ents, 2, 1000, nil))
	}
	if pipelinedEntries.Load() == before {
		t.Fatal("no entry went through the pipeline")
	}
	t.Logf("%d entries pipelined, %d segments, %d times sequential at a header, %d replays",
		pipelinedEntries.Load()-before, pipelinedJobs.Load(), toSequentialAt.Load(), replays.Load())
}

// TestPipelineTruncated cuts the packed data of every entry of a few
// archives at many points: both paths give the same bytes and error
// class, never a panic.
func TestPipelineTruncated(t *testing.T) {
	for _, name := range []string{"text-m3.rar", "x86-e8.rar", "delta4.rar", "solid-m3.rar", "md128k-wrap.rar"} {
		ents, err := parseRAR5(testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		maxLen := 0
		for _, e := range ents {
			maxLen = max(maxLen, len(e.packed))
		}
		step := max(1, maxLen/97)
		if testing.Short() {
			step = max(1, maxLen/13)
		}
		for at := 0; at < maxLen; at += step {
			cut := func(e *testEntry) []byte { return e.packed[:min(at, len(e.packed))] }
			want := decodeWith(ents, 1, 0, cut)
			got := decodeWith(ents, 2, 0, cut)
			sameResults(t, fmt.Sprintf("%s cut at %d", name, at), want, got)
		}
	}
}
