package unpack50

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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
		if testing.Short() && !strings.Contains(path, "rar5u") {
			continue // quick under -race: the package's own archives only
		}
		ents, _ := parseRAR5(data)
		want := decodeWith(ents, 1, 0, nil)
		sameResults(t, path+" on 2 workers", want, decodeWith(ents, 2, 0, nil))
		if testing.Short() {
			continue
		}
		sameResults(t, path+" on 3 workers", want, decodeWith(ents, 3, 0, nil))
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

// blocks lists the byte offsets of the block headers of a packed stream.
func blocks(p []byte) []int {
	var out []int
	for pos := 0; pos+3 <= len(p); {
		flags := p[pos]
		cnt := int(flags>>3&3) + 1
		if cnt == 4 || pos+2+cnt > len(p) {
			break
		}
		size := 0
		for i := range cnt {
			size |= int(p[pos+2+i]) << (8 * i)
		}
		out = append(out, pos)
		pos += 2 + cnt + size
		if flags&0x40 != 0 {
			break
		}
	}
	return out
}

// TestPipelineFilters: E8/E8E9 and DELTA filters, and a solid stream,
// whose data spans several blocks decode the same pipelined, the
// filters ran, and the blocks went through the workers.
func TestPipelineFilters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		filters []int
	}{
		{"pipe-x86.rar", []int{filterE8, filterE8E9}},
		{"pipe-delta.rar", []int{filterDelta}},
		{"pipe-solid.rar", []int{filterE8, filterE8E9}},
	} {
		ents, err := parseRAR5(testdata(t, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		nb := 0
		for _, e := range ents {
			nb += len(blocks(e.packed))
		}
		if nb < 2 {
			t.Fatalf("%s: %d blocks; the test needs several", tc.name, nb)
		}
		want := decodeWith(ents, 1, 0, nil)
		for i, e := range ents {
			verify(t, e, want[i].out)
		}
		jobs := pipelinedJobs.Load()
		d := NewDecoder()
		d.SetWorkers(2)
		for i, e := range ents {
			if err := d.ResetVersion(bytes.NewReader(e.packed), e.version, e.dict, e.size, e.solid); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := d.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want[i].out) {
				t.Fatalf("%s: %s differs pipelined (at %d)", tc.name, e.name, firstDiff(buf.Bytes(), want[i].out))
			}
		}
		ran := 0
		for _, f := range tc.filters {
			ran += d.filtersRun[f]
		}
		if ran == 0 {
			t.Errorf("%s: no filter of %v ran: %v", tc.name, tc.filters, d.filtersRun)
		}
		d.Close()
		if got := pipelinedJobs.Load() - jobs; got < int64(nb) {
			t.Errorf("%s: %d segments through the workers, want %d", tc.name, got, nb)
		}
		sameResults(t, tc.name+" Read(333)", want, decodeWith(ents, 2, 333, nil))
	}
}

// TestPipelineBigBlocks: blocks larger than a segment buffer go to the
// sequential decoder at their header, for any mix of small and large.
func TestPipelineBigBlocks(t *testing.T) {
	defer func(v int) { segMax = v }(segMax)
	for _, name := range []string{"pipe-x86.rar", "pipe-delta.rar", "pipe-solid.rar", "md128k-wrap.rar"} {
		ents, err := parseRAR5(testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		segMax = inBufSize - inPad - 8
		want := decodeWith(ents, 1, 0, nil)
		for _, lim := range []int{100, 5000, 16000, 17000, 30000} {
			segMax = lim
			before := toSequentialAt.Load()
			sameResults(t, fmt.Sprintf("%s with segments of %d", name, lim), want, decodeWith(ents, 2, 0, nil))
			if lim == 100 && toSequentialAt.Load() == before {
				t.Errorf("%s: no block left to the sequential decoder with segments of %d", name, lim)
			}
		}
	}
}

// TestPipelineReplay: corrupt block sizes (header checksum fixed up) make
// a worker's symbols run past its block or segment; the sequential
// decoder continues from the exact bit with the bytes replayed, so the
// output and error match the sequential decoder's.
func TestPipelineReplay(t *testing.T) {
	before := replays.Load()
	for _, name := range []string{"pipe-x86.rar", "pipe-delta.rar", "pipe-solid.rar", "text-m3.rar"} {
		ents, err := parseRAR5(testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		deltas, nk := []int{-1, -7, -100, -2000, 1, 50}, 3
		if testing.Short() {
			deltas, nk = []int{-7, -2000, 50}, 2
		}
		for _, delta := range deltas {
			for k := 0; k < nk; k++ {
				mod := func(e *testEntry) []byte {
					p := bytes.Clone(e.packed)
					bl := blocks(p)
					if k >= len(bl) {
						return p
					}
					at := bl[k]
					flags := p[at]
					cnt := int(flags>>3&3) + 1
					size := 0
					for i := range cnt {
						size |= int(p[at+2+i]) << (8 * i)
					}
					size += delta
					if size < 1 || size >= 1<<(8*cnt) {
						return p
					}
					for i := range cnt {
						p[at+2+i] = byte(size >> (8 * i))
					}
					p[at+1] = byte(0x5a ^ uint32(flags) ^ uint32(size) ^ uint32(size)>>8 ^ uint32(size)>>16)
					return p
				}
				want := decodeWith(ents, 1, 0, mod)
				sameResults(t, fmt.Sprintf("%s block %d size %+d", name, k, delta), want, decodeWith(ents, 2, 0, mod))
				if !testing.Short() {
					sameResults(t, fmt.Sprintf("%s block %d size %+d Read", name, k, delta), want, decodeWith(ents, 2, 4096, mod))
				}
			}
		}
	}
	if replays.Load() == before {
		t.Error("no replay happened")
	}
}

// TestPipelineCloseMidEntry: closing (or resetting) a decoder with
// segments in flight waits for its workers, stops them, and leaves
// nothing running that could touch buffers the pools hand out again.
func TestPipelineCloseMidEntry(t *testing.T) {
	ents, err := parseRAR5(testdata(t, "pipe-x86.rar"))
	if err != nil {
		t.Fatal(err)
	}
	e := ents[0]
	want := decodeWith(ents, 1, 0, nil)[0].out
	base := runtime.NumGoroutine()
	for i := range 20 {
		d := NewDecoder()
		d.SetWorkers(2 + i%3)
		if err := d.ResetVersion(bytes.NewReader(e.packed), e.version, e.dict, e.size, false); err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 1+i*97)
		if _, err := io.ReadFull(d, p); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p, want[:len(p)]) {
			t.Fatal("prefix differs")
		}
		if i%2 == 0 {
			// Abandon the entry for another one on the same decoder.
			if err := d.ResetVersion(bytes.NewReader(e.packed), e.version, e.dict, e.size, false); err != nil {
				t.Fatal(err)
			}
			io.ReadFull(d, p)
		}
		d.Close()
		if _, err := d.Read(p); err == nil {
			t.Fatal("Read after Close succeeded")
		}
		// The pools' buffers go to the next decoder at once.
		if got := decodeWith(ents, 2, 0, nil)[0].out; !bytes.Equal(got, want) {
			t.Fatal("decoder after Close differs")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Fatalf("%d goroutines left running, %d before", n, base)
	}
}

// TestPipelineAllocs: a warm pipelined decoder allocates nothing per
// entry or block.
func TestPipelineAllocs(t *testing.T) {
	ents, err := parseRAR5(testdata(t, "pipe-solid.rar"))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder()
	d.SetWorkers(2)
	defer d.Close()
	var r bytes.Reader
	run := func() {
		for _, e := range ents {
			r.Reset(e.packed)
			if err := d.ResetVersion(&r, e.version, e.dict, e.size, e.solid); err != nil {
				t.Fatal(err)
			}
			if _, err := d.WriteTo(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(10, run); a > 0 {
		t.Errorf("%.1f allocations per pass over %d entries", a, len(ents))
	}
}
