package testutil

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// The tests the ZIP legacy codecs (internal/implode, reduce, shrink)
// share: each package describes its variants and keeps its own encoder.

// LegacyVariant is one way a legacy method codes a stream: implode's
// window and tree count, reduce's factor, shrink's clear rate.
type LegacyVariant struct {
	Name          string // in failure messages; the entry name in GenZip
	Method, Flags uint16 // the ZIP method and flags that select it
	Encode        func(data []byte) []byte
	Decode        func(comp []byte, size int64) ([]byte, error)
}

// Against7zz checks that 7-Zip decodes what each variant's test encoder
// writes, for every input, to the input and to the bytes the package's
// decoder gives: the encoder, and with it the round trips, follows the
// format as 7-Zip reads it. It skips under -short or without 7zz.
func Against7zz(t *testing.T, inputs map[string][]byte, vs []LegacyVariant) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs 7zz")
	}
	tool, err := exec.LookPath("7zz")
	if err != nil {
		t.Skip("7zz not installed")
	}
	p := filepath.Join(t.TempDir(), "a.zip")
	for name, data := range inputs {
		for _, v := range vs {
			comp := v.Encode(data)
			var b ZipBuilder
			b.Add(ZipFile{Name: "f", Method: v.Method, Flags: v.Flags, Packed: comp, CRC: crc32.ChecksumIEEE(data), Size: uint64(len(data))})
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(tool, "e", "-so", p).Output()
			if err != nil {
				t.Fatalf("%s/%s: 7zz: %v", name, v.Name, err)
			}
			ours, err := v.Decode(comp, int64(len(data)))
			if err != nil || !bytes.Equal(out, data) || !bytes.Equal(ours, out) {
				t.Fatalf("%s/%s: 7zz and this decoder disagree (%d/%d bytes, %v)", name, v.Name, len(out), len(ours), err)
			}
		}
	}
}

// GenZip writes to path (skipping when it is empty) a ZIP archive with
// data coded by each variant, as an entry named after it: the committed
// test archives of the zip package, which no tool here can write.
func GenZip(t *testing.T, path string, data []byte, vs []LegacyVariant) {
	t.Helper()
	if path == "" {
		t.Skip("no -gen-zip")
	}
	var b ZipBuilder
	for _, v := range vs {
		b.Add(ZipFile{Name: v.Name, Method: v.Method, Flags: v.Flags, Packed: v.Encode(data), CRC: crc32.ChecksumIEEE(data), Size: uint64(len(data))})
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CheckResume takes checkpoints every 3000 bytes along z (decoding
// data, which must give 20 at least) and resumes from them (a quarter
// under -short): resume restores one and returns the reader of the
// rest, which must be data from there on. Each state bad makes of the
// middle checkpoint's must be refused with ErrCorrupt.
func CheckResume(t TB, name string, data []byte, z CheckpointDecoder, resume func(cp Taken) (io.Reader, error), bad func(state []byte) [][]byte) {
	t.Helper()
	cps, got := TakeCheckpoints(t, z, 3000)
	if !bytes.Equal(got, data) || len(cps) < 20 {
		t.Fatalf("%s: %d checkpoints", name, len(cps))
	}
	for k, cp := range cps {
		if Short() && k%4 != 1 {
			continue // under -short (and -race) a quarter of them
		}
		r, err := resume(cp)
		if err != nil {
			t.Fatalf("%s at %d: %v", name, cp.Out, err)
		}
		rest, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(rest, data[cp.Out:]) {
			t.Fatalf("%s from %d: %v", name, cp.Out, err)
		}
	}
	cp := cps[len(cps)/2]
	for _, st := range bad(cp.State) {
		if _, err := resume(Taken{st, cp.Out, cp.In}); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("%s: bad state: %v", name, err)
		}
	}
}

// CheckDecodeClass fails t when a decode of size bytes ended without an
// error but short, or with an error that is neither ErrCorrupt nor
// ErrTruncated (the fuzz targets of the legacy codecs).
func CheckDecodeClass(t TB, got []byte, size int, err error) {
	t.Helper()
	if err == nil && len(got) != size {
		t.Fatalf("%d bytes without error, want %d", len(got), size)
	}
	if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
		t.Fatalf("error %v is neither ErrCorrupt nor ErrTruncated", err)
	}
}

// ZeroAllocs fails t when run, once warmed up, allocates; it skips
// under -cover and -race, whose counts differ.
func ZeroAllocs(t *testing.T, what string, run func()) {
	t.Helper()
	if testing.CoverMode() != "" || RaceEnabled {
		t.Skip("allocation counts differ under -cover/-race")
	}
	NoAllocs(t, 10, what, run)
}

// NoAllocs fails t when run, once warmed up, allocates on average over
// runs runs.
func NoAllocs(t TB, runs int, what string, run func()) {
	t.Helper()
	run()
	if n := testing.AllocsPerRun(runs, run); n != 0 {
		t.Errorf("%v allocations per %s", n, what)
	}
}

// ReusedDecode is the run of the legacy codecs' allocation tests and
// benchmarks: reset points one reused decoder at a fresh reader of comp
// (and returns it); the decoder is read to its end (size bytes) and
// closed.
func ReusedDecode(tb TB, comp []byte, size int64, reset func(r io.Reader) io.ReadCloser) func() {
	br := bytes.NewReader(comp)
	return func() {
		br.Reset(comp)
		z := reset(br)
		if n, err := io.Copy(io.Discard, z); err != nil || n != size {
			tb.Fatal(n, err)
		}
		z.Close()
	}
}

// BenchDecode times run, a decode of size bytes (ReusedDecode's), as
// b's loop.
func BenchDecode(b *testing.B, size int64, run func()) {
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}
