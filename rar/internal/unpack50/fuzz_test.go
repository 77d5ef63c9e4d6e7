package unpack50

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzCap bounds the output read per input, so streams of unknown size
// that expand a lot stay quick.
const fuzzCap = 1 << 20

func fuzzSeeds(f testutil.F) {
	dir := filepath.Join(testutil.ModuleRoot(), "testdata", "rar5u")
	seeds := 0
	defer func() {
		if seeds == 0 {
			f.Fatal("no seed streams")
		}
	}()
	for _, n := range testutil.Glob(f, filepath.Join(dir, "*.rar")) {
		data, err := os.ReadFile(n)
		if err != nil {
			continue
		}
		ents, err := parseRAR5(data)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.method == 0 {
				continue
			}
			// Short seeds keep executions fast: whole small streams, and
			// the first 2 KiB (tables, first symbols) of the others.
			p := e.packed
			if len(p) > 6<<10 {
				p = p[:2<<10]
			}
			f.Add(p, uint8(e.ci>>10&0xf), min(e.size, fuzzCap), uint8(e.version))
			seeds++
		}
	}
}

// readAllCapped reads r to the end or to fuzzCap bytes.
func readAllCapped(r io.Reader, chunk int) ([]byte, error) {
	var out []byte
	p := make([]byte, chunk)
	for len(out) < fuzzCap {
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	return out[:fuzzCap], nil
}

type cappedWriter struct{ buf []byte }

var errCap = errors.New("cap reached")

func (w *cappedWriter) Write(p []byte) (int, error) {
	if room := fuzzCap - len(w.buf); len(p) > room {
		w.buf = append(w.buf, p[:room]...)
		return room, errCap
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// FuzzUnpack50 decodes arbitrary packed data with various dictionary and
// size settings; it must not panic or hang, and the Read and WriteTo paths
// (and a reused decoder) must produce the same bytes and error class.
func FuzzUnpack50(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte{0xc8, 0x12, 0x80, 0x00, 0x11, 0x11}, uint8(0), int64(64), uint8(0))
	d1, d2 := NewDecoder(), NewDecoder()
	d2.naive = true // and the plain byte-by-byte match copy
	f.Fuzz(func(t *testing.T, data []byte, dictBits uint8, size int64, version uint8) {
		// A hang crashes the worker, so the fuzzer keeps the input; the
		// window is clamped to the (capped) size, so 1 MiB of output
		// never needs more than a few MiB.
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		dict := int64(0x20000) << (dictBits % 16)
		if size < -1 || size > fuzzCap {
			size = size & (fuzzCap - 1)
		}
		v := int(version % 2)
		if err := d1.ResetVersion(bytes.NewReader(data), v, dict, size, false); err != nil {
			t.Fatal(err)
		}
		var w cappedWriter
		_, err1 := d1.WriteTo(&w)
		if err1 == errCap {
			err1 = nil
		}
		if err := d2.ResetVersion(bytes.NewReader(data), v, dict, size, false); err != nil {
			t.Fatal(err)
		}
		d2.naive = true
		got2, err2 := readAllCapped(d2, 3+len(data)%5000)
		if !bytes.Equal(w.buf, got2) {
			t.Fatalf("WriteTo gave %d bytes, Read %d", len(w.buf), len(got2))
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("WriteTo error %v, Read error %v", err1, err2)
		}
		if err1 != nil && !isErrClass(err1) {
			t.Fatalf("unexpected error class: %v", err1)
		}
		if size >= 0 && int64(len(w.buf)) > size {
			t.Fatalf("%d bytes for size %d", len(w.buf), size)
		}
		if err1 != nil || len(w.buf) >= fuzzCap {
			return
		}
		// The same bytes again as a solid continuation: window, tables
		// and distances carry over, and both decoders must still agree.
		e1 := d1.ResetVersion(bytes.NewReader(data), v, dict, size, true)
		e2 := d2.ResetVersion(bytes.NewReader(data), v, dict, size, true)
		if (e1 == nil) != (e2 == nil) {
			t.Fatalf("solid Reset: %v vs %v", e1, e2)
		}
		if e1 != nil {
			return
		}
		w.buf = w.buf[:0]
		_, err1 = d1.WriteTo(&w)
		if err1 == errCap {
			err1 = nil
		}
		got2, err2 = readAllCapped(d2, 1+len(data)%777)
		if !bytes.Equal(w.buf, got2) || (err1 == nil) != (err2 == nil) {
			t.Fatalf("solid: WriteTo %d bytes (%v), Read %d (%v)", len(w.buf), err1, len(got2), err2)
		}
	})
}

// FuzzPipeline decodes arbitrary packed data sequentially and through
// the pipeline (SetWorkers(2)): the bytes and the error class must be
// the same, for a first entry and for a solid continuation of it.
func FuzzPipeline(f *testing.F) {
	fuzzSeeds(f)
	// Whole streams of several blocks, so that segments reach the workers
	// (the shared seeds are cut to their first 2 KiB).
	for _, name := range []string{"pipe-x86.rar", "pipe-solid.rar"} {
		data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "testdata", "rar5u", name))
		if err != nil {
			f.Fatal(err)
		}
		ents, err := parseRAR5(data)
		if err != nil || len(ents) == 0 {
			f.Fatal(name, err)
		}
		e := ents[0]
		f.Add(e.packed, uint8(e.ci>>10&0xf), min(e.size, fuzzCap), uint8(e.version))
	}
	f.Add([]byte{0xc8, 0x12, 0x80, 0x00, 0x11, 0x11}, uint8(0), int64(64), uint8(0))
	seq, pip := NewDecoder(), NewDecoder()
	pip.SetWorkers(2)
	f.Fuzz(func(t *testing.T, data []byte, dictBits uint8, size int64, version uint8) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		dict := int64(0x20000) << (dictBits % 16)
		if size < -1 || size > fuzzCap {
			size = size & (fuzzCap - 1)
		}
		v := int(version % 2)
		run := func(solid bool) (a, b []byte, ea, eb error) {
			e1 := seq.ResetVersion(bytes.NewReader(data), v, dict, size, solid)
			e2 := pip.ResetVersion(bytes.NewReader(data), v, dict, size, solid)
			if errClass(e1) != errClass(e2) {
				t.Fatalf("Reset (solid %v): sequential %v, pipelined %v", solid, e1, e2)
			}
			if e1 != nil {
				return nil, nil, e1, e2
			}
			var w1, w2 cappedWriter
			_, ea = seq.WriteTo(&w1)
			_, eb = pip.WriteTo(&w2)
			if ea == errCap {
				ea = nil
			}
			if eb == errCap {
				eb = nil
			}
			return w1.buf, w2.buf, ea, eb
		}
		for _, solid := range []bool{false, true} {
			a, b, ea, eb := run(solid)
			if !bytes.Equal(a, b) {
				t.Fatalf("solid %v: sequential %d bytes, pipelined %d (first difference at %d)", solid, len(a), len(b), firstDiff(a, b))
			}
			if errClass(ea) != errClass(eb) {
				t.Fatalf("solid %v: sequential error %v, pipelined %v", solid, ea, eb)
			}
			if ea != nil || len(a) >= fuzzCap {
				return
			}
		}
	})
}
