package rar4test

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// Decoder is what every RAR 1.5-4 decoder offers its container.
type Decoder interface {
	Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error
	Read(p []byte) (int, error)
	WriteTo(w io.Writer) (int64, error)
	Close() error
}

type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// CorpusStreams returns the unencrypted, non-solid, single-part compressed
// entries of the shared corpus that keep accepts (skipping the test when
// the corpus is missing).
func CorpusStreams(tb testutil.TB, keep func(Entry) bool) []Entry {
	dir := testutil.CorpusDir(tb)
	var out []Entry
	for _, c := range testutil.Manifest(tb, dir) {
		if c.Error != "" {
			continue
		}
		ents, _ := Load(filepath.Join(dir, c.Archive))
		for _, e := range ents {
			if !e.Dir && e.Method != 0x30 && !e.Encrypted && !e.Split && !e.Solid && keep(e) {
				out = append(out, e)
			}
		}
	}
	if len(out) == 0 {
		tb.Fatal("no corpus stream of this version")
	}
	return out
}

// ReadPaths decodes each stream through Read with odd buffer sizes and a
// half reader under the decoder, and checks size and CRC.
func ReadPaths(t testutil.TB, d Decoder, ents []Entry) {
	t.Helper()
	if len(ents) == 0 {
		t.Fatal("ReadPaths: no streams to check")
	}
	for _, e := range ents {
		if err := d.Reset(iotest.HalfReader(bytes.NewReader(e.Packed)), e.Dict, e.Size, false); err != nil {
			t.Fatal(err)
		}
		h := crc32.NewIEEE()
		n, err := io.CopyBuffer(h, onlyReader{d}, make([]byte, 333))
		if err != nil || n != e.Size || h.Sum32() != e.CRC {
			t.Errorf("%s: %d bytes, crc %08x, %v", e.Name, n, h.Sum32(), err)
		}
	}
}

// Truncated checks that every prefix of each stream fails as truncated or
// corrupt, never silently short.
func Truncated(t testutil.TB, d Decoder, ents []Entry) {
	t.Helper()
	if len(ents) == 0 {
		t.Fatal("Truncated: no streams to check")
	}
	checked := 0
	for _, e := range ents {
		step := max(1, len(e.Packed)/200)
		for n := 0; n < len(e.Packed); n += step {
			if err := d.Reset(bytes.NewReader(e.Packed[:n]), e.Dict, e.Size, false); err != nil {
				t.Fatal(err)
			}
			h := crc32.NewIEEE()
			_, err := d.WriteTo(h)
			if err == nil {
				if h.Sum32() == e.CRC {
					continue // the tail held only a trailing table switch
				}
				t.Fatalf("%s: prefix %d of %d: no error", e.Name, n, len(e.Packed))
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errs.ErrCorrupt) {
				t.Fatalf("%s: prefix %d: %v", e.Name, n, err)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("Truncated: no prefix failed as it should")
	}
}

// Fuzz runs arbitrary packed data through two decoders, one by WriteTo and
// one by small Reads, with a size, dictionary and solid second pass chosen
// by the first byte: no panic or hang, only the package's error classes,
// and both paths agree. It adds the seeds to f and returns the body for
// the caller's f.Fuzz(func(t *testing.T, in []byte) { body(t, in) }):
// the f.Fuzz call stays in the test file, where a libFuzzer build
// (go-118-fuzz-build) can rewrite its *testing.T.
func Fuzz(f testutil.F, newDecoder func() Decoder, seeds []Entry) func(t testutil.TB, in []byte) {
	for _, e := range seeds {
		if len(e.Packed) < 64<<10 {
			f.Add(append([]byte{2}, e.Packed...))
			f.Add(append([]byte{11}, e.Packed...))
		}
	}
	f.Add([]byte{3, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	// Windows of at most 4 MiB, two decoders, outputs of 600 KB.
	return FuzzBody(newDecoder(), newDecoder(), 48<<20)
}

// FuzzBody is Fuzz's body over d1 (through WriteTo) and d2 (through
// Read), allocating at most maxAlloc bytes per input; a decoder whose
// errors include more classes than ErrCorrupt and ErrTruncated names
// them in also.
func FuzzBody(d1, d2 Decoder, maxAlloc uint64, also ...error) func(t testutil.TB, in []byte) {
	sizes := []int64{0, 100, 70000, 300000}
	dicts := []int64{64 << 10, 4 << 20}
	classes := append([]error{errs.ErrCorrupt, errs.ErrTruncated}, also...)
	return func(t testutil.TB, in []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, maxAlloc)()
		if len(in) == 0 {
			return
		}
		sel, in := in[0], in[1:]
		size, dict, passes := sizes[sel&3], dicts[sel>>2&1], 1+int(sel>>3&1)
		var outs [2][]byte
		var errsSeen [2]error
		for k, d := range []Decoder{d1, d2} {
			var buf bytes.Buffer
			for pass := 0; pass < passes; pass++ {
				if err := d.Reset(bytes.NewReader(in), dict, size, pass > 0); err != nil {
					errsSeen[k] = err
					break
				}
				var err error
				if k == 0 {
					_, err = d.WriteTo(&buf)
				} else {
					_, err = io.CopyBuffer(&buf, onlyReader{d}, make([]byte, 333))
				}
				if err != nil {
					errsSeen[k] = err
					break
				}
			}
			outs[k] = buf.Bytes()
		}
		if !bytes.Equal(outs[0], outs[1]) || (errsSeen[0] == nil) != (errsSeen[1] == nil) {
			t.Fatalf("WriteTo and Read disagree: %d/%d bytes, %v / %v", len(outs[0]), len(outs[1]), errsSeen[0], errsSeen[1])
		}
		if err := errsSeen[0]; err != nil {
			if !slices.ContainsFunc(classes, func(c error) bool { return errors.Is(err, c) }) {
				t.Fatalf("unexpected error class: %v", err)
			}
		} else if int64(len(outs[0])) != size*int64(passes) {
			t.Fatalf("no error but %d bytes", len(outs[0]))
		}
	}
}

// Bench decodes every stream of ents with d through WriteTo, once
// untimed to warm the pools, then per iteration, reporting throughput
// and the steady-state allocations.
func Bench(b *testing.B, d Decoder, ents []Entry) {
	if len(ents) == 0 {
		b.Fatal("Bench: no streams")
	}
	var total int64
	for _, e := range ents {
		total += e.Size
	}
	var src bytes.Reader
	b.SetBytes(total)
	b.ReportAllocs()
	warm := true
	for warm || b.Loop() {
		warm = false
		for _, e := range ents {
			src.Reset(e.Packed)
			if err := d.Reset(&src, e.Dict, e.Size, false); err != nil {
				b.Fatal(err)
			}
			if n, err := d.WriteTo(io.Discard); err != nil || n != e.Size {
				b.Fatalf("%s: %d of %d bytes, %v", e.Name, n, e.Size, err)
			}
		}
	}
}
