package xz

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// filterStreams are the testdata/cp streams (make.sh): BCJ and Delta
// filters, the filter holding back bytes at every checkpoint; in
// x86-sized.xz the block headers declare their sizes.
var filterStreams = []string{"x86.xz", "arm64-delta.xz", "x86-sized.xz"}

type xzCP struct {
	state   []byte
	out, in int64
}

// takeCheckpoints decodes b with small reads and takes a checkpoint
// wherever one can be taken; it returns them and the output.
func takeCheckpoints(tb testutil.TB, b []byte) ([]xzCP, []byte) {
	tb.Helper()
	z, err := NewReader(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	defer z.Close()
	var cps []xzCP
	var out bytes.Buffer
	buf := make([]byte, 700)
	for {
		if z.CanCheckpoint() {
			if z.Total() != int64(out.Len()) {
				tb.Fatalf("Total %d, %d read", z.Total(), out.Len())
			}
			st, o, in := z.Checkpoint(nil)
			if len(st) != z.CheckpointSize() {
				tb.Fatalf("state of %d bytes, CheckpointSize %d", len(st), z.CheckpointSize())
			}
			cps = append(cps, xzCP{st, o, in})
		}
		n, err := z.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return cps, out.Bytes()
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// TestCheckpointResume: from every checkpoint of every LZMA2-only test
// stream (checks CRC-32, CRC-64, SHA-256, none; several blocks and
// streams; BCJ and Delta filters) the resumed reader gives the rest of the output and passes
// every check to the end (the block checks, the index against the
// restored block records, the footers).
func TestCheckpointResume(t *testing.T) {
	total := 0
	for _, name := range testutil.Glob(t, filepath.Join(testdir, "*.xz")) {
		b := readTestFile(t, filepath.Base(name))
		cps, want := takeCheckpoints(t, b)
		total += len(cps)
		for _, cp := range cps {
			z := new(Reader)
			if err := z.ResetAt(bytes.NewReader(b[cp.in:]), cp.state, cp.out, cp.in); err != nil {
				t.Fatalf("%s at %d: %v", name, cp.out, err)
			}
			got, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(got, want[cp.out:]) {
				t.Fatalf("%s from %d: %d bytes, %v", name, cp.out, len(got), err)
			}
			// Wrong offsets or a cut state are refused or fail a check
			// (with the size known, as ZIP knows it), never give other
			// bytes silently.
			for _, bad := range []xzCP{{cp.state[:len(cp.state)-1], cp.out, cp.in}, {cp.state, cp.out + 1, cp.in}, {cp.state, cp.out, cp.in + 1}} {
				in := min(bad.in, int64(len(b)))
				if err := z.ResetAt(bytes.NewReader(b[in:]), bad.state, bad.out, bad.in, UncompressedSize(int64(len(want)))); err != nil {
					if !errors.Is(err, errs.ErrCorrupt) {
						t.Fatalf("%s: %v", name, err)
					}
					continue
				}
				got, err := io.ReadAll(z)
				if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrChecksum) {
					t.Fatalf("%s: %v", name, err)
				}
				if err == nil && !bytes.Equal(got, want[min(bad.out, int64(len(want))):]) {
					t.Fatalf("%s: a bad checkpoint gave other bytes without an error", name)
				}
			}
		}
	}
	if total < 10 {
		t.Fatalf("%d checkpoints in all", total)
	}
}

// FuzzCheckpointRestore resumes mutated checkpoints (state, offsets)
// taken along the test streams, over the real stream or a mutated one,
// under a 16 MiB memory limit. It must not panic, hang or over-allocate;
// a failure is one of the bad-input classes.
func FuzzCheckpointRestore(f *testing.F) {
	var streams [][]byte
	for _, name := range []string{"blocks.xz", "blocks-sized.xz", "check-sha256.xz", "check-crc64.xz", "concat-padded.xz", "small-crc64.xz"} {
		b := readTestFile(f, name)
		cps, _ := takeCheckpoints(f, b)
		for _, cp := range cps {
			f.Add(uint8(len(streams)), cp.state, cp.out, cp.in, []byte(nil))
		}
		streams = append(streams, b)
	}
	for _, name := range filterStreams {
		b, err := os.ReadFile(filepath.Join("testdata", "cp", name))
		if err != nil {
			f.Fatal(err)
		}
		cps, _ := takeCheckpoints(f, b)
		for _, cp := range cps {
			f.Add(uint8(len(streams)), cp.state, cp.out, cp.in, []byte(nil))
		}
		streams = append(streams, b)
	}
	z := new(Reader)
	f.Fuzz(func(t *testing.T, k uint8, st []byte, out, in int64, patch []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		b := streams[int(k)%len(streams)]
		if in < 0 || in > int64(len(b)) {
			in = max(min(in, int64(len(b))), 0)
		}
		data := b[in:]
		if len(patch) > 0 {
			data = bytes.Clone(data)
			for i := 0; i+1 < len(patch); i += 2 {
				if at := int(patch[i]) * 8; at < len(data) {
					data[at] = patch[i+1]
				}
			}
		}
		if err := z.ResetAt(bytes.NewReader(data), st, out, in, MaxMemory(16<<20)); err != nil {
			checkClass(t, err)
			return
		}
		_, err := io.Copy(io.Discard, io.LimitReader(z, fuzzMaxOut))
		checkClass(t, err)
	})
}

// TestCheckpointFilters: streams through BCJ and Delta filters take
// checkpoints between LZMA2 chunks (the filters' held bytes and Delta's
// history in the state) and resume from each to the right end.
func TestCheckpointFilters(t *testing.T) {
	for _, name := range filterStreams {
		b, err := os.ReadFile(filepath.Join("testdata", "cp", name))
		if err != nil {
			t.Fatal(err)
		}
		cps, want := takeCheckpoints(t, b)
		if len(cps) < 2 {
			t.Fatalf("%s: %d checkpoints", name, len(cps))
		}
		if testutil.Short() {
			cps = cps[len(cps)-1:] // each resume decodes up to 3 MB
		}
		for _, cp := range cps {
			var z Reader
			if err := z.ResetAt(bytes.NewReader(b[cp.in:]), cp.state, cp.out, cp.in, UncompressedSize(int64(len(want)))); err != nil {
				t.Fatalf("%s at %d: %v", name, cp.out, err)
			}
			got, err := io.ReadAll(&z)
			if err != nil || !bytes.Equal(got, want[cp.out:]) {
				t.Fatalf("%s from %d: %d bytes, %v", name, cp.out, len(got), err)
			}
		}
	}
}

// TestCheckpointSecondGeneration: a checkpoint taken by a reader that
// was itself resumed from one equals the one a full decode takes there,
// byte for byte (a field the restore did not set would differ).
func TestCheckpointSecondGeneration(t *testing.T) {
	for _, name := range filterStreams {
		b, err := os.ReadFile(filepath.Join("testdata", "cp", name))
		if err != nil {
			t.Fatal(err)
		}
		cps, _ := takeCheckpoints(t, b)
		first, second := cps[0], cps[1]
		var z Reader
		if err := z.ResetAt(bytes.NewReader(b[first.in:]), first.state, first.out, first.in); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 700)
		for out := first.out; ; {
			if z.CanCheckpoint() && out > first.out {
				st, o, in := z.Checkpoint(nil)
				if o != second.out || in != second.in || !bytes.Equal(st, second.state) {
					t.Fatalf("%s: second-generation checkpoint at %d/%d differs from %d/%d", name, o, in, second.out, second.in)
				}
				break
			}
			n, err := z.Read(buf)
			out += int64(n)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
}
